"""The learner's side of the judge's calls: runs inside the sandboxed learner kernel.

``_answer_judge`` connects to the judge's calls socket and answers each call on the kernel's
own event loop, between cells; ``_serve`` runs one call (unpickling its arguments, which the
judge sent) and encodes the result as plain data (``_encode``): values, never code.
``_JudgeObject`` stands in for an object the test owns (``labkit.judge.handles.owned``):
every call on it is answered by the judge over a Unix socket.

Everything here can be patched or replaced by the learner's code, which runs in the same
process: nothing this module says is trusted. The judge reads its replies with a strict
reader of plain data (``labkit.judge.reply``) and observes what matters from outside.
"""

from __future__ import annotations

import base64
import builtins
import io
import json
import pickle
import time
import traceback
from typing import Any

from .wire import (_HEADER, MAX_BUFFERED_BYTES, MAX_CONNECTIONS, MAX_DEPTH, MAX_REQUEST_BYTES,
                   _recv_exactly, _tensors_in)

_handles: dict[int, Any] = {}
_args: dict[int, int] = {}   # id of each tensor argument of the current call -> its position


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
