"""Run part of a test where the learner's code lives; judge its plain-data result elsewhere.

In the learner's own kernel (Validate, ``make validate``, self-study) nothing here is used:
``owned`` and ``learner_side`` give back the object or the module itself, and test cells
call the learner's functions directly.

In trusted grading (grading/trusted/judge.py) test cells run in a *judge* kernel that never runs
learner code. There every name the learner's answer cells define is a ``Remote``: calling
it (or a method of an object it returns) sends the call into the learner's sandboxed
kernel, and the result comes back as **plain data only**, decoded here by a strict JSON
reader: None, bools, ints, floats, complex, str, bytes, lists, tuples, dicts, sets,
torch tensors, NumPy arrays and scalars, MXNet NDArrays, dtypes and devices, and raised
exceptions (re-raised here as the nearest built-in exception, with the learner's
traceback as a note). Anything else stays in the learner's kernel and comes back as a
``Remote`` handle. So an answer can lie about nothing but its values: no ``__eq__`` that
always says True, no patched check, no transformer, no forged output reaches a verdict.
Calls travel over a Unix socket the judge listens on in the kernel's socket folder (which
only the grader can write, inside a folder no other user can enter), served only to the uid
the grader runs the learner's kernel as (SO_PEERCRED); the learner's kernel answers them one
at a time on its own event loop, between cells (``_answer_judge``).

Arguments travel the other way by value (cloudpickle): what the
learner's code does to tensors it was given comes back onto the judge's own tensors (for
in-place functions), so a test computes expected values from copies it made before the
call. Expected values and verdicts never go in.

Test code does not go in either: a function, class or object a test defines and hands to
the learner's code is sent by reference, never its code (below). A test that needs objects
where the learner's code runs builds them there from library classes (``learner_side("torch.nn").Linear(3, 2)`` is a
handle to a module made in the learner's kernel; what the learner's code does to it is read
back as values), and an object the test observes the learner's code through (a stream, a
clock, an op that notes when it ran) stays in the judge: ``owned(obj)`` sends it by
reference, and every call the learner's code makes on it is served by the judge over a
Unix socket, so the log of those calls lives where the student's code cannot reach it.
"""

from __future__ import annotations

import base64
import builtins
import io
import json
import os
import pickle
import re
import time
import traceback
from typing import Any

_session: Any = None  # the judge's Session in trusted grading; None in the learner's kernel

MAX_REPLY_BYTES = 512 << 20   # a reply larger than this is refused by the judge
MAX_DEPTH = 64                # nesting of containers in a reply
MAX_ITEMS = 2_000_000         # lists, dicts, strings and separators in a reply
# The judge's objects socket, per student (Session): at most MAX_CONNECTIONS connections at
# once (one thread each; the newest idle one makes way for a new one, else the new one is
# closed), a call announcing more than MAX_REQUEST_BYTES refused before it is read, at most
# MAX_BUFFERED_BYTES of calls being read at once (a call that would pass it is refused), and
# a connection that sends nothing for IDLE_SECONDS closed.
MAX_CONNECTIONS = 32
MAX_REQUEST_BYTES = 64 << 20
MAX_BUFFERED_BYTES = 128 << 20
IDLE_SECONDS = 60.0


def learner_side(module: str) -> Any:
    """The module ``module`` where the learner's code runs: the module itself in the learner's
    kernel; in trusted grading a handle to it inside the learner's kernel, so objects a test
    builds from its classes live there (and come back as values when read)."""
    if not _MODULE.fullmatch(module or ""):
        raise ValueError(f"not a module name: {module!r}")
    if _session is None:
        import importlib
        return importlib.import_module(module)
    return Remote(("m", module), "module", False)


def owned(obj: Any) -> Any:
    """Mark ``obj`` as the test's own: returned unchanged. In trusted grading, when it is
    passed to the learner's code (as an argument, or inside one, or in a closure), the
    learner's code gets a stand-in whose calls and attribute reads run on ``obj`` in the
    judge; the learner's kernel never holds ``obj`` or its code."""
    if _session is not None:
        _session.own(obj)
    return obj


def sandbox_record(path: str) -> tuple[int | None, set[int]]:
    """Judge side: a forked sandbox's record (grading/trusted/forkserver.py's PID 1 writes it): the
    kernel's pid and the pids of the workers alive, as the sandbox sees them."""
    kernel, alive = None, set()
    with open(path) as f:
        for line in f:
            kind, pid = line[:1], line[1:].strip()
            if kind == "k":
                kernel = int(pid)
            elif kind == "+":
                alive.add(int(pid))
            elif kind == "-":
                alive.discard(int(pid))
    return kernel, alive


def sandbox_host_pids(root: int, inner: set[int] | list[int]) -> dict[int, int]:
    """Judge side: this machine's pid of each of ``inner`` (pids inside the PID namespace of
    ``root``, a forked sandbox's PID 1), looked for among ``root``'s own children alone."""
    host: dict[int, int] = {}
    ns = os.readlink(f"/proc/{root}/ns/pid")
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as f:
                if int(f.read().rsplit(")", 1)[1].split()[1]) != root:
                    continue
            with open(f"/proc/{name}/status") as f:
                nspid = int(next(line.split() for line in f if line.startswith("NSpid:"))[-1])
            if nspid in inner and os.readlink(f"/proc/{name}/ns/pid") == ns:
                host[nspid] = int(name)
        except (OSError, StopIteration, ValueError):
            pass
    return host


def kernel_memory(spans: list[tuple[int, int]], writes: list[tuple[int, bytes]] | None = None
                  ) -> list[bytes] | None:
    """Judge side: the bytes of the learner's kernel's memory at each (address, size), read by
    the judge from /proc/<kernel>/mem, the kernel named by the sandbox's record (never by
    the kernel itself); a span that cannot be read gives b"". ``writes``: (address, bytes)
    written there first, in order (a write that does not go through raises OSError). None
    where there is no judge, no record (bubblewrap's sandbox) or no access to the kernel's
    memory."""
    record = getattr(_session, "workers_record", "") if _session is not None else ""
    if not record:
        return None
    try:
        kernel, _ = sandbox_record(record)
        host = sandbox_host_pids(_session.pid, {kernel}).get(kernel) if kernel else None
        if host is None:
            return None
        out = []
        with open(f"/proc/{host}/mem", "r+b" if writes else "rb", buffering=0) as mem:
            for address, data in writes or []:
                if os.pwrite(mem.fileno(), data, address) != len(data):
                    raise OSError(f"{len(data)} bytes could not be written at {address:#x}")
            for address, size in spans:
                try:
                    out.append(os.pread(mem.fileno(), size, address) if size else b"")
                except (OSError, OverflowError, ValueError):
                    out.append(b"")
        return out
    except OSError:
        if writes:
            raise
        return None


class JudgeMapped:
    """Tensors for the learner's code whose memory the judge reads itself.

    ``JudgeMapped(tensors)``: ``.there`` is a handle to a list, where the learner's code runs,
    of tensors equal to ``tensors`` (``transposed``: their transposes, views that are not
    contiguous); ``.read()`` gives what each one's memory holds now. In trusted grading
    each tensor's storage is a file the judge made in the kernel's socket folder (which only
    the grader can write), mapped shared there, and ``read()`` reads the file through the
    judge's own descriptor: whatever the learner's code or its patched torch says, the
    memory the tensor was given is what is read, so "in place" is the judge's observation.
    In the learner's own kernel (Validate) they are plain copies."""

    def __init__(self, tensors: list, transposed: bool = False):
        import torch

        self.shapes = [tuple(t.shape) for t in tensors]
        self.dtypes = [t.dtype for t in tensors]
        self.transposed = transposed
        self._fds: list[int] = []
        if _session is None:
            self._local = [t.detach().clone() for t in tensors]
            views = [t.transpose(-1, -2) for t in self._local] if transposed else list(self._local)
            self.there = [views]
            return
        folder = _session.folder
        if not folder or not os.path.isdir(folder):
            raise RuntimeError("this check reads memory the judge maps into the learner's kernel, "
                               "which needs the kernel's socket folder (an ipc transport)")
        import uuid

        partials, paths = [], []
        lt, lb = learner_side("torch"), learner_side("builtins")
        partial = learner_side("functools").partial
        try:
            for t in tensors:
                data = t.detach().contiguous().cpu().view(-1).view(torch.uint8).numpy().tobytes()
                path = os.path.join(folder, f"mapped-{uuid.uuid4().hex}")
                fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
                self._fds.append(fd)
                paths.append(path)
                if os.geteuid() == 0 and _session.uid != os.getuid():
                    os.fchown(fd, _session.uid, _session.uid)
                os.ftruncate(fd, max(len(data), 1))
                os.pwrite(fd, data, 0)
                partials.append(partial(lt.from_file, path, True, t.numel(), dtype=t.dtype))
            made = lb.map(learner_side("operator").call, partials)
            shaped = lb.map(lt.Tensor.view, made, [s for s in self.shapes])
            if transposed:
                itertools = learner_side("itertools")
                shaped = lb.map(lt.Tensor.transpose, shaped, itertools.repeat(-1), itertools.repeat(-2))
            self.there = learner_side("collections").deque(lb.map(lb.list, lb.iter([shaped])))
        finally:
            for path in paths:   # mapped there now (or never): no name left to reach them by
                try:
                    os.unlink(path)
                except OSError:
                    pass

    def read(self) -> list:
        """What each tensor's own memory holds now, shaped as given (transposed back)."""
        import torch

        if _session is None:
            return [t.clone() for t in self._local]
        out = []
        for fd, shape, dtype in zip(self._fds, self.shapes, self.dtypes):
            numel = 1
            for n in shape:
                numel *= n
            size = numel * torch.empty((), dtype=dtype).element_size()
            data = os.pread(fd, size, 0) if size else b""
            if len(data) != size:
                raise AssertionError("the memory given to the learner's code was cut short (its file "
                                     f"holds {len(data)} of {size} bytes)")
            out.append(torch.frombuffer(bytearray(data), dtype=dtype).view(shape).clone()
                       if size else torch.empty(shape, dtype=dtype))
        return out

    def close(self) -> None:
        for fd in self._fds:
            os.close(fd)
        self._fds = []

    def __del__(self):
        try:
            self.close()
        except Exception:  # noqa: BLE001
            pass


def learner_cpu_seconds() -> float:
    """CPU seconds used so far by the learner's code: in trusted grading read by the judge
    from /proc for every process of the learner's kernel (its worker processes included);
    in the learner's own kernel this process's CPU time (self-study: not a verdict)."""
    if _session is None:
        return time.process_time()
    return _session.cpu_seconds()


_MODULE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")


class LearnerCodeError(Exception):
    """The learner's code raised an exception that is not a built-in one."""


class RemoteTimeout(TimeoutError):
    """The learner's code did not answer within the time limit."""


class RemoteDied(RuntimeError):
    """The learner's kernel died while running a call."""


# ----------------------------------------------------------------------------------
# Learner's side: runs inside the sandboxed kernel. Its output is untrusted by design.
# ----------------------------------------------------------------------------------
_handles: dict[int, Any] = {}
_args: dict[int, int] = {}   # id of each tensor argument of the current call -> its position


def _tensors_in(x: Any, depth: int = 0) -> list:
    """Tensors in arguments (inside lists, tuples and dicts too), in a fixed order."""
    if depth > 8:
        return []
    if type(x) in (list, tuple):
        return [t for v in x for t in _tensors_in(v, depth + 1)]
    if type(x) is dict:
        return [t for v in x.values() for t in _tensors_in(v, depth + 1)]
    mod = type(x).__module__ or ""
    if mod.startswith("torch"):
        import torch
        if isinstance(x, torch.Tensor):
            return [x]
    return []


class _Loader(pickle.Unpickler):
    def persistent_load(self, pid):
        kind, key = pid[:2]
        if kind == "h":
            return _handles[key]
        if kind == "m":
            import importlib
            return importlib.import_module(key)
        if kind == "j":
            return _JudgeObject(key, pid[2])
        import __main__
        try:
            return getattr(__main__, key)
        except AttributeError:
            raise NameError(f"name '{key}' is not defined: the notebook did not define it "
                            "(was its cell run?)") from None


_HEADER = 16   # a call's or a reply's header: its sequence number and its size, two !Q


def _answer_judge(path: str) -> None:
    """Learner's side: answer the judge's calls over the Unix socket it listens on at ``path``,
    one at a time on this kernel's own event loop (its main thread, between cells), as a
    cell's code would run. A call costs a socket round trip, not an execute request
    (IPython's cell machinery, four messages, output flushes: about 4 ms)."""
    import asyncio
    import signal
    import socket
    import struct

    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(path)
    loop = asyncio.get_running_loop()

    def stop() -> None:
        loop.remove_reader(sock.fileno())
        sock.close()

    def on_request() -> None:
        # an interrupt (the judge's time limit) stops the call, as in a cell; between calls
        # the kernel ignores it, as it does between cells
        previous = signal.signal(signal.SIGINT, signal.default_int_handler)
        try:
            seq, size = struct.unpack("!QQ", _recv_exactly(sock, _HEADER))
            reply = _serve(_recv_exactly(sock, size).decode("ascii")).encode()
            sock.sendall(struct.pack("!QQ", seq, len(reply)) + reply)
        except BaseException:  # noqa: BLE001 (the judge reconnects; nothing else to tell)
            stop()
        finally:
            signal.signal(signal.SIGINT, previous)

    loop.add_reader(sock.fileno(), on_request)


def _serve(payload: str) -> str:
    """Run one request from the judge; return the JSON reply."""
    _args.clear()
    try:
        op, target, data, grads = _Loader(io.BytesIO(base64.b64decode(payload))).load()
        # a tuple: code that rewrites lists it finds up the stack cannot swap the tensors
        # whose state after the call is reported back
        given = tuple(_tensors_in(list(data))) if op == "call" else ()
        for t, g in zip(given, grads or []):
            if g is not None and t.is_leaf:
                t.grad = g  # pickling a tensor drops its .grad: it travels beside it
        _args.update({id(t): i for i, t in reversed(list(enumerate(given)))})
        if op == "call":
            args, kwargs = data
            value = target(*args, **kwargs)
        elif op == "getattr":
            value = getattr(target, data)
        elif op == "setattr":
            setattr(target, data[0], data[1])
            value = None
        elif op == "getitem":
            value = target[data]
        elif op == "setitem":
            target[data[0]] = data[1]
            value = None
        elif op == "len":
            value = len(target)
        elif op == "list":
            value = list(target)
        elif op == "describe":
            value = {"type": type(target).__name__, "callable": callable(target)}
        else:
            raise ValueError(f"unknown request {op!r}")
        reply = {"ok": _encode(value, 0)}
        if given:  # what the call did to the tensors it was given (in-place functions)
            _args.clear()
            reply["args"] = _describe_args(given)
        return json.dumps(reply, allow_nan=True)
    except BaseException as exc:  # noqa: BLE001 (everything goes back to the judge)
        _args.clear()
        return json.dumps({"exc": _encode_exc(exc)})


class _JudgeObject:
    """Learner's side: stands in for an object the test owns (``owned``). Calls and attribute
    reads go to the judge over a Unix socket (one connection per thread); arguments travel
    as plain data (learner objects as handles), results come back pickled by the judge."""

    __slots__ = ("_key", "_path")

    def __init__(self, key: int, path: str):
        object.__setattr__(self, "_key", key)
        object.__setattr__(self, "_path", path)

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return _ask(self._path, {"op": "getattr", "key": self._key, "name": name})

    def __setattr__(self, name, value):
        raise AttributeError("the test's objects are read-only where your code runs")

    def __call__(self, *args, **kwargs):
        return _ask(self._path, {"op": "call", "key": self._key,
                                 "args": _encode(list(args), 0, {}),
                                 "kwargs": _encode(dict(kwargs), 0, {})})

    def __reduce_ex__(self, protocol):
        raise TypeError("the test's objects stay in the judge: they cannot be sent to another "
                        "process (call them from the process that was given them)")

    def __repr__(self):
        return "<the test's object>"


_local = None


def _ask(path: str, request: dict) -> Any:
    """Learner's side: one call on a test-owned object, answered by the judge. A connection
    the judge closed without answering (idle too long, or making way for another) is
    replaced, four times at most: the judge never runs a call it does not answer."""
    import socket
    import struct
    import threading

    global _local
    if _local is None:
        _local = threading.local()
    body = json.dumps(request, allow_nan=True).encode()
    if len(body) > MAX_REQUEST_BYTES:
        raise ValueError(f"a call on the test's objects is at most {MAX_REQUEST_BYTES >> 20} "
                         f"MiB of arguments; this one is {len(body) >> 20} MiB")
    for attempt in range(5):
        conns = getattr(_local, "conns", {})
        conn = conns.get(path)
        if conn is None:
            conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            conn.connect(path)
            _local.conns = {**conns, path: conn}
        try:
            conn.sendall(struct.pack("!Q", len(body)) + body)
            head = conn.recv(8)
        except OSError:
            head = b""
        if head:
            break
        conn.close()
        _local.conns = {k: v for k, v in getattr(_local, "conns", {}).items() if k != path}
        if attempt == 4:
            raise ConnectionError(
                "the judge closed the connection without answering: at most "
                f"{MAX_CONNECTIONS} connections to the test's objects are served at once, "
                f"with at most {MAX_BUFFERED_BYTES >> 20} MiB of calls in flight")
        time.sleep(0.05 * attempt)
    size = struct.unpack("!Q", head + _recv_exactly(conn, 8 - len(head)))[0]
    ok, value = _Loader(io.BytesIO(_recv_exactly(conn, size))).load()
    if not ok:
        raise value
    return value


def _recv_exactly(conn, n: int) -> bytes:
    chunks, left = [], n
    while left:
        chunk = conn.recv(min(left, 1 << 20))
        if not chunk:
            raise ConnectionError("the other side closed the connection")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _describe_args(given: list) -> list[dict]:
    """Each tensor argument after the call: its values, its .grad, and which earlier argument
    it now shares memory with (``t.set_(other)``), so the judge can mirror all three."""
    out, where = [], {}
    for i, t in enumerate(given):
        key = None
        if t.numel():
            key = (t.untyped_storage().data_ptr(), t.storage_offset(), tuple(t.shape), t.stride())
        alias = where.get(key) if key else None
        if key and alias is None:
            where[key] = i
        grad = t.grad if t.is_leaf else None
        out.append({"v": _encode(t.detach(), 0), "alias": alias,
                    "g": _encode(grad.detach(), 0) if grad is not None else None})
    return out


def _b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode("ascii")


def _encode(x: Any, depth: int, args: dict | None = None) -> Any:
    """Plain data for x; a tensor that is an argument of the current call (``args``, by
    default the call's) is sent as a reference to it."""
    args = _args if args is None else args
    if depth > MAX_DEPTH:
        raise ValueError("result nested too deeply")
    t = type(x)
    if x is None or t in (bool, int, str):
        return x
    if t is float:
        return {"__t": "float", "v": repr(x)}
    if t is complex:
        return {"__t": "complex", "re": repr(x.real), "im": repr(x.imag)}
    if t is bytes:
        return {"__t": "bytes", "b64": _b64(x)}
    if t in (list, tuple, set, frozenset):
        items = [_encode(v, depth + 1, args) for v in x]
        return items if t is list else {"__t": t.__name__, "v": items}
    if t is dict:
        return {"__t": "dict", "v": [[_encode(k, depth + 1, args), _encode(v, depth + 1, args)]
                                     for k, v in x.items()]}
    mod = t.__module__ or ""
    if mod.startswith("torch"):
        import torch
        if isinstance(x, torch.Tensor) and id(x) in args:
            return {"__t": "arg", "i": args[id(x)]}
        if isinstance(x, torch.Tensor):
            if x.layout != torch.strided or x.is_quantized:
                x = x.to_dense()
            dev = str(x.device)
            if x.device.type == "meta":  # shapes without values: nothing to copy
                return {"__t": "tensor", "dtype": str(x.dtype).removeprefix("torch."),
                        "shape": list(x.shape), "device": "meta", "b64": "",
                        "grad": bool(x.requires_grad)}
            data = x.detach().cpu().contiguous()
            flat = data.reshape(-1)
            if flat.numel() and flat.stride(0) != 1:  # one element keeps any stride
                flat = flat.clone(memory_format=torch.contiguous_format)
            raw = flat.view(torch.uint8).numpy().tobytes() if data.numel() else b""
            return {"__t": "tensor", "dtype": str(data.dtype).removeprefix("torch."),
                    "shape": list(data.shape), "device": dev, "b64": _b64(raw),
                    "grad": bool(x.requires_grad)}
        if t is torch.dtype:
            return {"__t": "tdtype", "v": str(x).removeprefix("torch.")}
        if t is torch.device:
            return {"__t": "tdevice", "v": str(x)}
        if t is torch.Size:
            return {"__t": "tuple", "v": [int(v) for v in x]}
    if mod.startswith("numpy"):
        import numpy as np
        if isinstance(x, np.ndarray) and x.dtype.kind not in "OV":
            return {"__t": "ndarray", "dtype": x.dtype.str, "shape": list(x.shape),
                    "b64": _b64(np.ascontiguousarray(x).tobytes())}
        if isinstance(x, np.generic) and x.dtype.kind not in "OV":
            return {"__t": "npscalar", "dtype": x.dtype.str, "b64": _b64(x.tobytes())}
        if isinstance(x, np.dtype):
            return {"__t": "npdtype", "v": x.str}
    if mod.startswith("mxnet") and hasattr(x, "asnumpy") and hasattr(x, "context"):
        arr = x.asnumpy()
        return {"__t": "mxnd", "dtype": arr.dtype.str, "shape": list(arr.shape),
                "ctx": [x.context.device_type, int(x.context.device_id)],
                "b64": _b64(arr.tobytes())}
    if mod.startswith("mxnet") and t.__name__ == "Context":
        return {"__t": "mxctx", "v": [x.device_type, int(x.device_id)]}
    if isinstance(x, BaseException):
        return {"__t": "excvalue", "v": _encode_exc(x)}
    key = id(x)
    _handles[key] = x
    return {"__t": "handle", "id": key, "type": t.__name__[:100], "callable": callable(x)}


def _encode_exc(exc: BaseException) -> dict:
    names = [k.__name__ for k in type(exc).__mro__
             if getattr(builtins, k.__name__, None) is k]
    try:
        msg = str(exc)
    except BaseException:  # noqa: BLE001
        msg = "<exception whose str() failed>"
    frames = exc.__traceback__
    while frames is not None and frames.tb_frame.f_code.co_filename == __file__:
        frames = frames.tb_next  # the learner's own frames only
    tb = "".join(traceback.format_exception(type(exc), exc, frames))
    return {"type": type(exc).__name__[:200], "builtin": names, "msg": msg[:20000],
            "tb": tb[-20000:]}


# ----------------------------------------------------------------------------------
# Judge's side: runs in the judge kernel, outside the sandbox; never unpickles or runs
# anything that came from the learner's kernel.
# ----------------------------------------------------------------------------------
_PLAIN_EXC = {name for name in dir(builtins)
              if isinstance(getattr(builtins, name), type)
              and issubclass(getattr(builtins, name), BaseException)}


class Remote:
    """A name or object that lives in the learner's kernel (see the module docstring)."""

    __slots__ = ("_target", "_type", "_callable")

    def __init__(self, target: tuple, type_name: str = "", is_callable: bool = True):
        object.__setattr__(self, "_target", target)
        object.__setattr__(self, "_type", type_name)
        object.__setattr__(self, "_callable", is_callable)

    def __call__(self, *args, **kwargs):
        return _session.request("call", self, (args, kwargs))

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return _session.request("getattr", self, name)

    def __setattr__(self, name, value):
        _session.request("setattr", self, (name, value))

    def __getitem__(self, key):
        return _session.request("getitem", self, key)

    def __setitem__(self, key, value):
        _session.request("setitem", self, (key, value))

    def __len__(self):
        n = _session.request("len", self, None)
        if type(n) is not int:
            raise TypeError("len() of the learner's object did not return an int")
        return n

    def __iter__(self):
        items = _session.request("list", self, None)
        if type(items) is not list:
            raise TypeError("iterating the learner's object did not give a list")
        return iter(items)

    def __reduce_ex__(self, protocol):
        raise TypeError("the learner's objects live in the learner's kernel and cannot be sent "
                        "to another process from the judge: pass them to the learner's "
                        "functions, or build objects there with labkit.remote.learner_side")

    def __repr__(self):
        kind, key = self._target
        what = f"'{key}'" if kind == "n" else f"object of type {self._type}"
        return f"<learner's {what}>"


def _test_code(obj: Any) -> bool:
    """A function, class or method a test cell defined, or an instance of such a class:
    sent to the learner's code by reference only (never its code)."""
    import types

    if isinstance(obj, (types.FunctionType, type)):
        return getattr(obj, "__module__", None) == "__main__"
    if isinstance(obj, types.MethodType):
        return _test_code(obj.__func__) or _test_code(obj.__self__)
    return getattr(type(obj), "__module__", None) == "__main__"


class _Dumper:
    """cloudpickle, with Remote objects sent as references to the learner's objects."""

    def __init__(self, owner: Any = None):
        import cloudpickle

        class Pickler(cloudpickle.CloudPickler):
            def persistent_id(self, obj):
                if type(obj) is Remote:
                    return obj._target
                if owner is not None and (id(obj) in owner.owned or _test_code(obj)):
                    owner.own(obj)   # the test's own code and objects stay in the judge
                    return ("j", id(obj), owner.path)
                return None

        self.Pickler = Pickler

    def dumps(self, obj) -> str:
        buf = io.BytesIO()
        self.Pickler(buf, protocol=pickle.DEFAULT_PROTOCOL).dump(obj)
        return base64.b64encode(buf.getvalue()).decode("ascii")

    def raw(self, obj) -> bytes:
        buf = io.BytesIO()
        self.Pickler(buf, protocol=pickle.DEFAULT_PROTOCOL).dump(obj)
        return buf.getvalue()


def _decode(x: Any, depth: int = 0, given: list | None = None) -> Any:
    if depth > MAX_DEPTH:
        raise ValueError("reply nested too deeply")
    if x is None or type(x) in (bool, int, str):
        return x
    if type(x) is list:
        return [_decode(v, depth + 1, given) for v in x]
    if type(x) is not dict or type(x.get("__t")) is not str:
        raise ValueError("malformed reply from the learner's kernel")
    t = x["__t"]
    if t == "arg":  # the very tensor the judge passed in (returned, or kept in a container)
        i = x["i"]
        if type(i) is not int or not given or not 0 <= i < len(given):
            raise ValueError("malformed argument reference")
        return given[i]
    if t == "float":
        return float(_str(x["v"]))
    if t == "complex":
        return complex(float(_str(x["re"])), float(_str(x["im"])))
    if t == "bytes":
        return _raw(x)
    if t in ("tuple", "set", "frozenset"):
        items = [_decode(v, depth + 1) for v in _list(x["v"])]
        return {"tuple": tuple, "set": set, "frozenset": frozenset}[t](items)
    if t == "dict":
        return {_decode(k, depth + 1, given): _decode(v, depth + 1, given) for k, v in
                (_pair(p) for p in _list(x["v"]))}
    if t == "tensor":
        import torch
        dtype = _torch_dtype(x["dtype"])
        shape = _shape(x["shape"])
        raw = _raw(x)
        if x.get("device") == "meta" and not raw:
            out = torch.empty(shape, dtype=dtype, device="meta")
            if x.get("grad") is True and (out.is_floating_point() or out.is_complex()):
                out.requires_grad_(True)
            return out
        numel = 1
        for s in shape:
            numel *= s
        itemsize = torch.empty((), dtype=dtype).element_size()
        if len(raw) != numel * itemsize:
            raise ValueError("tensor reply of the wrong size")
        flat = torch.frombuffer(bytearray(raw), dtype=torch.uint8) if raw else \
            torch.empty(0, dtype=torch.uint8)
        out = flat.view(dtype).reshape(shape).clone()
        dev = _str(x.get("device", "cpu"))
        if dev != "cpu":
            try:
                out = out.to(torch.device(dev))
            except (RuntimeError, ValueError):
                pass
        if x.get("grad") is True and (out.is_floating_point() or out.is_complex()):
            out.requires_grad_(True)
        return out
    if t == "tdtype":
        return _torch_dtype(x["v"])
    if t == "tdevice":
        import torch
        return torch.device(_str(x["v"]))
    if t in ("ndarray", "npscalar"):
        import numpy as np
        dtype = np.dtype(_str(x["dtype"]))
        if dtype.kind in "OV":
            raise ValueError("object arrays are not plain data")
        raw = _raw(x)
        if t == "npscalar":
            if len(raw) != dtype.itemsize:
                raise ValueError("scalar reply of the wrong size")
            return np.frombuffer(raw, dtype=dtype)[0]
        shape = _shape(x["shape"])
        numel = 1
        for s in shape:
            numel *= s
        if len(raw) != numel * dtype.itemsize:
            raise ValueError("array reply of the wrong size")
        return np.frombuffer(raw, dtype=dtype).reshape(shape).copy()
    if t == "npdtype":
        import numpy as np
        dtype = np.dtype(_str(x["v"]))
        if dtype.kind in "OV":
            raise ValueError("object dtypes are not plain data")
        return dtype
    if t in ("mxnd", "mxctx"):
        import mxnet as mx
        kind, dev = _list(x["ctx"] if t == "mxnd" else x["v"])
        ctx = mx.Context(_str(kind), int(dev))
        if t == "mxctx":
            return ctx
        arr = _decode({**x, "__t": "ndarray"}, depth + 1)
        return mx.nd.array(arr, ctx=ctx, dtype=arr.dtype)
    if t == "excvalue":
        return _exception(x["v"])
    if t == "handle":
        key = x["id"]
        if type(key) is not int:
            raise ValueError("malformed handle")
        return Remote(("h", key), _str(x.get("type", "?"))[:100], x.get("callable") is True)
    raise ValueError(f"unknown reply type {t[:40]!r}")


def _str(v) -> str:
    if type(v) is not str:
        raise ValueError("malformed reply: expected a string")
    return v


def _list(v) -> list:
    if type(v) is not list:
        raise ValueError("malformed reply: expected a list")
    return v


def _pair(v) -> list:
    v = _list(v)
    if len(v) != 2:
        raise ValueError("malformed reply: expected a pair")
    return v


def _raw(x: dict) -> bytes:
    return base64.b64decode(_str(x["b64"]), validate=True)


def _shape(v) -> list[int]:
    shape = _list(v)
    if len(shape) > 64 or any(type(s) is not int or s < 0 for s in shape):
        raise ValueError("malformed shape")
    return shape


def _torch_dtype(name):
    import torch
    dtype = getattr(torch, _str(name), None)
    if not isinstance(dtype, torch.dtype):
        raise ValueError(f"unknown dtype {name!r}")
    return dtype


def _plain_exception(exc: BaseException) -> BaseException:
    """An exception of the test's object as the nearest built-in one, message only (nothing
    of the judge's frames goes to the learner's code)."""
    cls = next((k for k in type(exc).__mro__ if getattr(builtins, k.__name__, None) is k
                and k.__name__ in _PLAIN_EXC), RuntimeError)
    try:
        return cls(str(exc)[:2000])
    except Exception:  # noqa: BLE001 (a built-in with a special constructor)
        return RuntimeError(str(exc)[:2000])


def _exception(info: dict) -> BaseException:
    names = [n for n in _list(info.get("builtin", [])) if type(n) is str and n in _PLAIN_EXC]
    msg, kind = _str(info.get("msg", "")), _str(info.get("type", "Exception"))[:200]
    cls = getattr(builtins, names[0]) if names else LearnerCodeError
    if cls in (KeyboardInterrupt, SystemExit, GeneratorExit, BaseException):
        cls = LearnerCodeError
    try:
        exc = cls(msg if cls is not LearnerCodeError else f"{kind}: {msg}")
    except Exception:  # noqa: BLE001 (a built-in with a special constructor)
        exc = LearnerCodeError(f"{kind}: {msg}")
    tb = _str(info.get("tb", ""))
    if tb:
        exc.add_note("raised in your code:\n" + tb.rstrip())
    return exc


_JSON_DEPTH = 3 * MAX_DEPTH + 2  # a dict is three JSON levels; the reply wraps it in one more
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_EMPTY_PAIR = re.compile(r"\[\]|\{\}")


def _check_size(body: str) -> None:
    """Refuse a JSON reply with more than MAX_ITEMS items or nested deeper than MAX_DEPTH
    before anything is built from it (a 40 MiB ``[[],[],...]`` would become gigabytes of
    lists). Only strings are made, by regular expressions: strings cut out, then brackets,
    braces and commas counted; depth is the number of passes that remove innermost pairs."""
    bare, strings = _STRING.subn("", body)
    items = strings + bare.count(",") + bare.count("[") + bare.count("{")
    if items > MAX_ITEMS:
        raise LearnerCodeError(f"the reply has more than {MAX_ITEMS:,} items (lists, dicts, "
                               "strings, numbers): return large data as one tensor or array")
    brackets = _NOT_BRACKET.sub("", bare)
    del bare
    for _ in range(_JSON_DEPTH):
        brackets, n = _EMPTY_PAIR.subn("", brackets)
        if not brackets or not n:
            return  # empty: depth within bounds; no pair left: malformed, json.loads says so
    raise LearnerCodeError(f"the reply is nested more than {MAX_DEPTH} levels deep: return "
                           "flatter data")


def _parse_reply(raw: Any) -> dict:
    """The judge's reading of the learner's reply (JSON text), within bounds on items and
    depth; LearnerCodeError for anything else."""
    try:
        if type(raw) is not str:
            raise ValueError
        _check_size(raw)
        body = json.loads(raw)
    except (ValueError, TypeError, MemoryError, RecursionError):
        raise LearnerCodeError("no readable reply from the learner's kernel") from None
    if type(body) is not dict:
        raise LearnerCodeError("no readable reply from the learner's kernel")
    return body


def _peer_uid(conn) -> int | None:
    """The uid of the process at the other end of a Unix socket connection, as the kernel
    recorded it when that process connected (SO_PEERCRED on Linux, LOCAL_PEERCRED on macOS);
    -1 where it cannot be read, None on a system that cannot tell."""
    import socket
    import struct
    import sys

    try:
        if hasattr(socket, "SO_PEERCRED"):
            creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
            return struct.unpack("3i", creds)[1]
        if sys.platform == "darwin":   # struct xucred: version, uid, ...
            return struct.unpack_from("2I", conn.getsockopt(0, 0x001, 76))[1]
    except (OSError, struct.error):
        return -1
    return None


class Session:
    """The judge's connection to the learner's kernel. ``uid`` is the uid the learner's
    kernel runs as, told by the grader (never by the learner's kernel): a connection to the
    judge's sockets from any other uid is closed unserved (default: this process's own uid,
    a kernel that is not sandboxed)."""

    def __init__(self, connection: dict, pgid: int, pid: int, timeout: float,
                 uid: int | None = None):
        import threading

        from jupyter_client import BlockingKernelClient

        self.kc = BlockingKernelClient()
        self.kc.load_connection_info(connection)
        self.kc.start_channels(iopub=False, stdin=False, hb=False, control=False)
        self.pgid, self.pid, self.timeout = pgid, pid, timeout
        self.uid = os.getuid() if uid is None else int(uid)
        self.workers_record = ""    # where a forked sandbox's PID 1 lists its workers
        self.owned: dict[int, Any] = {}     # id -> the test's objects the learner may call
        self._methods: dict[tuple, Any] = {}
        self.folder = (os.path.dirname(connection.get("ip", "")) if
                       connection.get("transport") == "ipc" else "")
        self.path = ""
        self._server = None
        self._live: dict = {}       # connections to the objects socket -> busy (a call runs)
        self._lock = threading.Lock()
        self._buffered = 0          # bytes of calls being read or run, all connections
        self._main = threading.get_ident()
        self.dumper = _Dumper(self)
        self._calls = None      # the socket the learner's kernel connects to for calls
        self._calls_path = ""
        self._made: list[str] = []   # folders _bind made for its sockets (no kernel folder)
        self._conn = None       # that connection, once made
        self._asked = False     # the learner's kernel was asked to connect
        self._seq = 0
        self.kc.execute("import labkit.remote as __labkit_remote", silent=True,
                        store_history=False)

    def close(self) -> None:
        """Close the connection (its sockets and their zmq context) and stop serving the
        test's objects."""
        self.kc.stop_channels()
        self.kc.context.destroy(linger=0)
        server, self._server = self._server, None
        calls, self._calls = self._calls, None
        with self._lock:
            live, self._live = list(self._live), {}
        for sock in [server, *live, calls, self._conn]:
            if sock is not None:
                try:
                    sock.close()
                except OSError:
                    pass
        self._conn = None
        for path in (self.path, self._calls_path):
            if path:
                try:
                    os.unlink(path)
                except OSError:
                    pass
        for folder in self._made:
            try:
                os.rmdir(folder)
            except OSError:
                pass
        self.owned.clear()
        self._methods.clear()

    # -- the test's own objects, served to the learner's code (``owned``) --------------
    def own(self, obj: Any) -> None:
        self.owned[id(obj)] = obj
        if self._server is None:
            self._listen()

    def _bind(self, kind: str):
        """A Unix socket the learner's kernel can connect to: in its connection's folder
        (which only the grader can write once the kernel is up), else a new folder."""
        import socket
        import tempfile

        folder = self.folder if self.folder and os.path.isdir(self.folder) else None
        if folder is None:
            folder = tempfile.mkdtemp(prefix="judge-sockets-")
            self._made.append(folder)
        path = os.path.join(folder, f"judge-{kind}-{os.getpid()}-{id(self) & 0xffffff:x}")
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        server.bind(path)
        if os.geteuid() == 0 and self.uid != 0:
            os.chown(path, self.uid, -1)   # the sandbox's uid connects to it, no other
        os.chmod(path, 0o600)
        server.listen(64)
        return server, path

    def _listen(self) -> None:
        import threading

        self._server, self.path = self._bind("objects")
        server = self._server
        threading.Thread(target=self._accept, args=(server,), daemon=True,
                         name="judge-objects").start()

    def _accept(self, server) -> None:
        """Serve each connection of the learner's uid on a thread of its own, at most
        MAX_CONNECTIONS at once: a new one takes the place of the newest idle one (its next
        call reconnects; connections kept from before a flood stay), or is closed when every
        one is running a call. A connection of any other uid is closed at once."""
        import socket
        import threading

        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            if _peer_uid(conn) not in (self.uid, None):
                conn.close()
                continue
            with self._lock:
                if self._server is not server:   # closed meanwhile
                    conn.close()
                    return
                if len(self._live) >= MAX_CONNECTIONS:
                    idle = next((c for c, busy in reversed(self._live.items()) if not busy),
                                None)
                    if idle is None:
                        conn.close()
                        continue
                    del self._live[idle]
                    try:
                        idle.shutdown(socket.SHUT_RDWR)   # its thread ends
                    except OSError:
                        pass
                self._live[conn] = False
            try:
                threading.Thread(target=self._serve_conn, args=(conn,), daemon=True,
                                 name="judge-objects-call").start()
            except RuntimeError:   # no thread to be had (the judge's own limit)
                with self._lock:
                    self._live.pop(conn, None)
                conn.close()

    def _serve_conn(self, conn) -> None:
        import struct

        conn.settimeout(IDLE_SECONDS)   # silent that long, or not reading the answer: closed
        size = 0
        try:
            while True:
                size = 0
                size = struct.unpack("!Q", _recv_exactly(conn, 8))[0]
                with self._lock:   # refused unread: too large, or too much being read at once
                    if size > MAX_REQUEST_BYTES or \
                            self._buffered + size > MAX_BUFFERED_BYTES or conn not in self._live:
                        size = 0
                        return
                    self._buffered += size
                data = _recv_exactly(conn, size)   # a connection that broke: the loop ends
                with self._lock:
                    if conn not in self._live:   # closed to make way for another: not run
                        return
                    self._live[conn] = True
                try:
                    out = (True, self._answer(data.decode("utf-8")))
                except Exception as exc:  # noqa: BLE001 (goes back to the learner's code)
                    out = (False, _plain_exception(exc))   # an OSError of the object's too
                del data
                try:
                    reply = self.dumper.raw(out)
                except Exception as exc:  # noqa: BLE001
                    reply = self.dumper.raw((False, TypeError(
                        f"the test's object returned something that cannot be sent: {exc}")))
                del out
                conn.sendall(struct.pack("!Q", len(reply)) + reply)
                del reply
                with self._lock:
                    self._buffered -= size
                    size = 0
                    if conn in self._live:
                        self._live[conn] = False
        except (ConnectionError, OSError, struct.error):
            return
        finally:
            with self._lock:
                self._buffered -= size
                self._live.pop(conn, None)
            try:
                conn.close()
            except OSError:
                pass

    def _answer(self, body: str) -> Any:
        """One call or attribute read on a test-owned object, read from the learner's request
        within the same bounds as its replies (plain data only)."""
        _check_size(body)
        req = json.loads(body)
        if type(req) is not dict or type(req.get("key")) is not int:
            raise ValueError("malformed request")
        obj = self.owned.get(req["key"])
        if obj is None:
            raise ValueError("no such object of the test's")
        if req.get("op") == "getattr":
            name = req.get("name")
            if type(name) is not str or name.startswith("_"):
                raise AttributeError(f"no public attribute {str(name)[:80]!r}")
            value = getattr(obj, name)
            if callable(value):  # a method: a stand-in of its own
                value = self._methods.setdefault((req["key"], name), value)
                self.owned[id(value)] = value
            return value
        if req.get("op") == "call":
            if not callable(obj):
                raise TypeError("the test's object is not callable")
            args, kwargs = _decode(req.get("args")), _decode(req.get("kwargs"))
            if type(args) is not list or type(kwargs) is not dict or \
                    any(type(k) is not str for k in kwargs):
                raise ValueError("malformed call")
            return obj(*args, **kwargs)
        raise ValueError("unknown request")

    def cpu_seconds(self) -> float:
        """CPU seconds of the learner's kernel and every process under it, read from /proc
        (reaped children included, through their parents' cutime and cstime)."""
        ticks = os.sysconf("SC_CLK_TCK")
        stats: dict[int, tuple[int, int]] = {}   # pid -> (ppid, ticks)
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            try:
                with open(f"/proc/{name}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            stats[int(name)] = (int(fields[1]), sum(int(v) for v in fields[11:15]))
        children: dict[int, list[int]] = {}
        for pid, (ppid, _) in stats.items():
            children.setdefault(ppid, []).append(pid)
        total, todo = 0, [self.pid]
        while todo:
            pid = todo.pop()
            if pid in stats:
                total += stats[pid][1]
                todo.extend(children.get(pid, []))
        return total / ticks

    def _alive(self) -> bool:
        try:
            with open(f"/proc/{self.pid}/stat") as f:
                return f.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
        except OSError:
            return False

    def _channel(self, deadline: float):
        """The connection the learner's kernel answers calls on: asked for on first use (and
        again after it broke), accepted within the call's time limit."""
        import select

        if self._conn is not None:
            return self._conn
        if self._calls is None:
            self._calls, self._calls_path = self._bind("calls")
        if not self._asked:
            self.kc.execute(f"__labkit_remote._answer_judge({self._calls_path!r})",
                            silent=True, store_history=False)
            self._asked = True
        while True:   # the learner's kernel's connection: one of another uid is closed
            while not select.select([self._calls], [], [], self._wait(deadline))[0]:
                self._check_alive()
            conn, _ = self._calls.accept()
            if _peer_uid(conn) in (self.uid, None):
                break
            conn.close()
        self._conn = conn
        self._asked = False
        return self._conn

    def _wait(self, deadline: float) -> float:
        """Seconds to wait for the learner's kernel before looking again (at most 1), or
        RemoteTimeout (the call interrupted)."""
        left = deadline - time.monotonic()
        if left <= 0:
            self._interrupt()
            raise RemoteTimeout(f"your code did not finish within {self.timeout:.0f} s")
        return min(left, 1.0)

    def _check_alive(self) -> None:
        """RemoteDied once the learner's kernel is gone (read from /proc: looked at only
        while waiting, a process it started may hold the connection open)."""
        if not self._alive():
            self._drop()
            raise RemoteDied("the kernel running your code died (os._exit, a segfault or "
                             "running out of memory)")

    def _drop(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            conn.close()

    def _closed(self, deadline: float) -> None:
        """The learner's side closed the connection: RemoteDied if its kernel is gone (or
        goes within 2 s: the socket closes as the process exits), else LearnerCodeError."""
        self._drop()
        end = min(deadline, time.monotonic() + 2.0)
        while self._alive() and time.monotonic() < end:
            time.sleep(0.02)
        self._check_alive()
        raise LearnerCodeError("the learner's kernel closed its connection to the judge")

    def _recv(self, n: int, deadline: float, keep: bool = True) -> bytes:
        """``n`` bytes of the connection (dropped unread where not ``keep``) by the deadline."""
        import select

        chunks, left = [], n
        while left:
            try:
                wait = self._wait(deadline)
            except RemoteTimeout:
                if left < n:  # given up on inside a message: what follows is not a header
                    self._drop()
                raise
            if not select.select([self._conn], [], [], wait)[0]:
                self._check_alive()
                continue
            chunk = self._conn.recv(min(left, 1 << 20))
            if not chunk:
                self._closed(deadline)
            if keep:
                chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)

    def _exchange(self, payload: bytes, deadline: float) -> str:
        """Send one call; its reply's text. Replies to calls given up on (interrupted at the
        time limit) are read past."""
        import struct

        conn = self._channel(deadline)
        self._seq += 1
        try:
            conn.sendall(struct.pack("!QQ", self._seq, len(payload)) + payload)
        except OSError:
            self._closed(deadline)
        while True:
            seq, size = struct.unpack("!QQ", self._recv(_HEADER, deadline))
            if size > MAX_REPLY_BYTES:
                self._drop()
                raise LearnerCodeError(f"the reply is larger than {MAX_REPLY_BYTES >> 20} MiB: "
                                       "return less data")
            if seq == self._seq:
                try:
                    return self._recv(size, deadline).decode("utf-8")
                except UnicodeDecodeError:
                    raise LearnerCodeError("no readable reply from the learner's kernel") from None
            self._recv(size, deadline, keep=False)

    def request(self, op: str, target: Any, data: Any) -> Any:
        import threading

        if threading.get_ident() != self._main:
            raise RuntimeError("the test's objects cannot call back into the learner's code")
        given = _tensors_in(list(data)) if op == "call" else []
        payload = self.dumper.dumps((op, target, data, [t.grad for t in given]))
        deadline = time.monotonic() + self.timeout
        try:
            body = _parse_reply(self._exchange(payload.encode("ascii"), deadline))
        except KeyboardInterrupt:
            self._interrupt()
            raise
        if "exc" in body and type(body["exc"]) is dict:
            raise _exception(body["exc"])
        if "ok" not in body:
            raise LearnerCodeError("no readable reply from the learner's kernel")
        try:
            if given and "args" in body:
                self._write_back(given, body["args"])
            return _decode(body["ok"], 0, given)
        except (ValueError, KeyError, TypeError, RecursionError, OverflowError) as exc:
            raise LearnerCodeError(f"the reply is not plain data: {exc}") from None

    @staticmethod
    def _write_back(given: list, new: Any) -> None:
        """Mirror what the learner's code did to the tensors it was given (values, .grad,
        shared memory) on the judge's own tensors, so in-place functions (``allreduce_``)
        behave as if called here."""
        import torch

        new = _list(new)
        if len(new) != len(given):
            raise ValueError("the reply describes other arguments than were sent")
        with torch.no_grad():
            for i, (mine, theirs) in enumerate(zip(given, new)):
                if type(theirs) is not dict:
                    raise ValueError("malformed argument description")
                alias = theirs.get("alias")
                value = _decode(theirs.get("v"))
                if not isinstance(value, torch.Tensor):
                    raise ValueError("an argument tensor came back as something else")
                if type(alias) is int and 0 <= alias < i:
                    mine.set_(given[alias])
                elif value.dtype == mine.dtype and value.shape == mine.shape:
                    if mine.numel() and any(g is not mine and g.is_set_to(mine)
                                            for g in given[:i]):
                        mine.set_(torch.empty_like(mine))  # no longer the same memory there
                    mine.copy_(value)
                else:
                    mine.set_(value.to(mine.device))
                if mine.is_leaf:
                    grad = theirs.get("g")
                    grad = _decode(grad) if grad is not None else None
                    if grad is None or (isinstance(grad, torch.Tensor)
                                        and grad.shape == mine.shape and grad.dtype == mine.dtype):
                        mine.grad = grad

    def _interrupt(self) -> None:
        import signal
        try:
            os.killpg(self.pgid, signal.SIGINT)
        except OSError:
            pass


def learner_sources() -> list[str]:
    """Judge side: the code cells the learner handed in, as submitted (for checks that read
    source, such as labkit.nocast.source_casts)."""
    if _session is None:
        raise RuntimeError("learner_sources() is for the judge in trusted grading")
    return list(_session.sources)


def connect(connection: dict, names: list[str], pgid: int, pid: int, timeout: float,
            sources: list[str] = (), uid: int | None = None, workers: str = "") -> dict:
    """Judge side: open the session and return a Remote for each of the learner's names.
    ``uid``: the uid the learner's kernel runs as (the grader knows it; the sandbox's own),
    the only one the judge's sockets serve. ``workers``: the file where a forked sandbox's
    PID 1 lists the worker processes it forked (labkit.traffic.Meter measures those)."""
    global _session
    if _session is not None:
        _session.close()
    _session = Session(connection, pgid, pid, timeout, uid)
    _session.sources = list(sources)
    _session.workers_record = workers
    if _fresh is not None:  # every student's tests draw the same numbers, whatever the
        _restore_generators()  # first connection of this judge drew while setting up
    return {name: Remote(("n", name)) for name in names}


# ----------------------------------------------------------------------------------
# Judge kernel reuse: one judge serves the students of a grading process one after the
# other (grading/trusted/judge.py). Between two students it goes back to the state it booted in.
# ----------------------------------------------------------------------------------
_fresh: dict | None = None
# the seed of the inputs hidden tests generate (Hypothesis), the same for a whole grading run
# (make autograde sets and prints it); unset: a new one per judge kernel
SEED_ENV = "COURSE_GRADING_SEED"
# the course's test suite only, never a class's grading: at most this many generated
# examples per Hypothesis test in this judge (explicit @example cases all still run). The
# suite grades each notebook's solution with every example, and its wrong-answer variants,
# whose failures explicit examples pin, with a few.
EXAMPLES_CAP_ENV = "COURSE_TEST_MAX_EXAMPLES"
# a soak run only (make soak): this many times the generated examples each Hypothesis test
# asks for, to find generated tests that a correct answer fails on a rare draw
EXAMPLES_SCALE_ENV = "COURSE_TEST_EXAMPLES_SCALE"


def _limit_examples(cap: int | None = None, scale: int = 1) -> None:
    """Every Hypothesis settings object made from now on in this process draws ``scale``
    times the examples its test asks for, and at most ``cap``."""
    from hypothesis import settings

    base = getattr(settings.__init__, "_unlimited", settings.__init__)

    def limit(n: int) -> int:
        return min(n * scale, cap) if cap else n * scale

    def limited(self, parent=None, **kwargs):
        wanted = kwargs.get("max_examples")
        if isinstance(wanted, int):
            kwargs["max_examples"] = limit(wanted)
        base(self, parent, **kwargs)

    limited._unlimited = base
    default = settings.get_profile("default").max_examples
    settings.__init__ = limited
    settings.register_profile("course-examples", max_examples=default)
    settings.load_profile("course-examples")


def _torch_state() -> dict:
    import torch

    flags = {"cuda.matmul.allow_tf32": torch.backends.cuda.matmul.allow_tf32,
             "cudnn.allow_tf32": torch.backends.cudnn.allow_tf32,
             "cudnn.deterministic": torch.backends.cudnn.deterministic,
             "cudnn.benchmark": torch.backends.cudnn.benchmark}
    return {"dtype": torch.get_default_dtype(), "grad": torch.is_grad_enabled(),
            "threads": torch.get_num_threads(), "matmul": torch.get_float32_matmul_precision(),
            "deterministic": torch.are_deterministic_algorithms_enabled(),
            "rng": torch.random.get_rng_state(), "flags": flags}


def _set_torch_state(state: dict) -> None:
    """Put back what differs from ``state`` (setting an unchanged value can cost seconds: the
    first ``set_num_threads`` or deterministic-mode call initialises torch's back ends)."""
    import torch

    now = _torch_state()
    if now["dtype"] != state["dtype"]:
        torch.set_default_dtype(state["dtype"])
    if now["grad"] != state["grad"]:
        torch.set_grad_enabled(state["grad"])
    if now["threads"] != state["threads"]:
        torch.set_num_threads(state["threads"])
    if now["matmul"] != state["matmul"]:
        torch.set_float32_matmul_precision(state["matmul"])
    if now["deterministic"] != state["deterministic"]:
        torch.use_deterministic_algorithms(state["deterministic"])
    if not torch.equal(now["rng"], state["rng"]):
        torch.random.set_rng_state(state["rng"])
    for name, value in state["flags"].items():
        if now["flags"][name] != value:
            where, attr = name.rsplit(".", 1)
            obj = torch.backends
            for part in where.split("."):
                obj = getattr(obj, part)
            setattr(obj, attr, value)


def judge_snapshot() -> None:
    """Judge side, once, right after the judge kernel has booted: note its fresh state."""
    global _fresh
    import random
    import sys

    import numpy

    try:  # hidden tests draw their inputs with it: imported now, so its generator is reset too
        import hypothesis.core  # noqa: F401
    except ImportError:
        pass
    else:
        cap, scale = (os.environ.get(name, "") for name in (EXAMPLES_CAP_ENV, EXAMPLES_SCALE_ENV))
        cap = int(cap) if cap.isdigit() and int(cap) > 0 else None
        scale = int(scale) if scale.isdigit() and int(scale) > 0 else 1
        if cap or scale > 1:
            _limit_examples(cap, scale)
    seed = os.environ.get(SEED_ENV, "")
    _fresh = {"modules": set(sys.modules), "env": dict(os.environ), "cwd": os.getcwd(),
              "random": random.getstate(), "numpy": numpy.random.get_state(),
              "torch": _torch_state(),
              "seed": int(seed) if seed.isdigit() else int.from_bytes(os.urandom(8), "big")}


def _course_module(name: str, module: Any, roots: tuple[str, ...]) -> bool:
    """A module of the course or of the judge's working folder (not of the Python
    installation): such modules are imported afresh for every student."""
    if name in ("labkit", __name__):
        return False
    path = getattr(module, "__file__", None) or ""
    return name.split(".")[0] == "labkit" or (bool(path) and not path.startswith(roots))


def _restore_generators() -> None:
    """The generators back to the judge's booted state; Hypothesis's to the grading run's seed
    (every student of a judge gets the same generated inputs, and a run can be drawn again)."""
    import random
    import sys

    import numpy
    import torch

    core = sys.modules.get("hypothesis.core")
    local = getattr(core, "threadlocal", None)
    if local is not None:
        local._hypothesis_global_random = random.Random(_fresh["seed"])
    random.setstate(_fresh["random"])
    numpy.random.set_state(_fresh["numpy"])
    if not torch.equal(torch.random.get_rng_state(), _fresh["torch"]["rng"]):
        torch.random.set_rng_state(_fresh["torch"]["rng"])


def judge_reset(shell: Any) -> None:
    """Judge side, between two students: back to the state ``judge_snapshot`` noted. The
    session to the last student's kernel is closed, the namespace emptied (IPython's
    reset), every module of the course or of the working folder dropped (imported afresh
    by the next student's tests), modules loaded since boot from outside the Python
    installation dropped, and the working folder, environment, random generators and
    torch's global settings put back."""
    global _session
    import sys
    import sysconfig


    if _fresh is None:
        raise RuntimeError("judge_snapshot() was not called when this judge booted")
    if _session is not None:
        _session.close()
        _session = None
    _handles.clear()
    _args.clear()
    shell.reset(new_session=False)
    roots = tuple({os.path.realpath(p) for p in
                   (sys.prefix, sys.base_prefix, sysconfig.get_paths()["stdlib"])} |
                  {p for p in (sys.prefix, sys.base_prefix)})
    for name, module in list(sys.modules.items()):
        if _course_module(name, module, roots):
            del sys.modules[name]
    os.chdir(_fresh["cwd"])
    os.environ.clear()
    os.environ.update(_fresh["env"])
    _restore_generators()
    _set_torch_state(_fresh["torch"])
    if "matplotlib.pyplot" in sys.modules:
        sys.modules["matplotlib.pyplot"].close("all")
