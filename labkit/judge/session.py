"""The judge's connection to one learner kernel (judge side, in the judge kernel).

``connect`` opens a ``Session`` and returns a ``Remote`` for each name the learner's cells
define. A session sends calls over a Unix socket the learner's kernel connects to
(``labkit.judge.learner._answer_judge``), waits for each reply within the time limit
(interrupting, then reporting the kernel dead), decodes it (``labkit.judge.reply``), and
mirrors onto the judge's own tensors what an in-place call did to its arguments. It also
serves the test's own objects (``owned``) to the learner's code over a second socket, bounded
in connections, threads and bytes in flight (``labkit.judge.wire``).

What it trusts: the uid the grader says the learner's kernel runs as (a connection from
any other uid is closed unserved, SO_PEERCRED) and the sandbox's record of its processes;
never anything the learner's kernel says about itself.
"""

from __future__ import annotations

import json
import os
import time
from typing import Any

from . import handles
from .handles import Remote, _Dumper
from . import reset
from .reply import _check_size, _decode, _exception, _list, _parse_reply, _plain_exception
from .wire import (_HEADER, IDLE_SECONDS, MAX_BUFFERED_BYTES, MAX_CONNECTIONS, MAX_REPLY_BYTES,
                   MAX_REQUEST_BYTES, LearnerCodeError, RemoteDied, RemoteTimeout, _recv_exactly,
                   _tensors_in)

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
        self.kc.execute("import labkit.judge.learner as __labkit_learner", silent=True,
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

    def runnable_seconds(self) -> float:
        """Seconds the learner's kernel and every process under it wanted a CPU, read from /proc:
        CPU time (reaped children included, through their parents' cutime and cstime) plus the
        time each live thread waited on a run queue (schedstat). A spinning loop is runnable the
        whole time however loaded the machine is; a thread asleep on a lock is not."""
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
        cpu, waited, todo = 0, 0, [self.pid]
        while todo:
            pid = todo.pop()
            if pid in stats:
                cpu += stats[pid][1]
                waited += _run_queue_ns(pid)
                todo.extend(children.get(pid, []))
        return cpu / ticks + waited / 1e9

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
            self.kc.execute(f"__labkit_learner._answer_judge({self._calls_path!r})",
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


def connect(connection: dict, names: list[str], pgid: int, pid: int, timeout: float,
            sources: list[str] = (), uid: int | None = None, workers: str = "") -> dict:
    """Judge side: open the session and return a Remote for each of the learner's names.
    ``uid``: the uid the learner's kernel runs as (the grader knows it; the sandbox's own),
    the only one the judge's sockets serve. ``workers``: the file where a forked sandbox's
    PID 1 lists the worker processes it forked (labkit.judge.traffic.Meter measures those)."""
    if handles._session is not None:
        handles._session.close()
    session = handles._session = Session(connection, pgid, pid, timeout, uid)
    session.sources = list(sources)
    session.workers_record = workers
    if reset._fresh is not None:  # every student's tests draw the same numbers, whatever the
        reset._restore_generators()  # first connection of this judge drew while setting up
    return {name: Remote(("n", name)) for name in names}


def _run_queue_ns(pid: int) -> int:
    """Nanoseconds the threads of process pid have waited on a run queue (the second field of
    /proc/<pid>/task/<tid>/schedstat; 0 where the kernel keeps no schedstat)."""
    total = 0
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return 0
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                total += int(f.read().split()[1])
        except (OSError, IndexError, ValueError):
            continue
    return total
