"""Run a function in N processes that share a ``torch.distributed`` process group.

The function may be defined in a notebook cell: it is sent to the workers by value
(cloudpickle), and the workers are fresh Python processes that never re-import the
notebook, so this works inside a Jupyter kernel. Each worker calls
``fn(rank, world_size, *args, **kwargs)`` with the group initialised (gloo on CPU,
NCCL when there is a GPU for every rank). What the workers print is shown here,
prefixed with their rank. If one worker raises, its traceback is raised here as
:class:`WorkerError`; all workers are ended within ``timeout`` seconds of the moment every
one of them is up (Python started, torch imported, connected to the rendezvous: that
start-up has its own, longer limit, so a busy machine's slow imports never eat into the
work's time), and none is left behind, whatever happens (error, timeout, interrupt, or
the parent dying).
"""

from __future__ import annotations

import ctypes
import datetime
import os
import pickle
import signal
import subprocess
import sys
import time
import traceback
from multiprocessing.connection import Connection, wait
from typing import Any, Callable

__all__ = ["DistributedUnavailable", "WorkerError", "default_backend", "distributed_status", "run"]

_HOST = "127.0.0.1"
_GRACE_SECONDS = 3.0
_CONNECT_ATTEMPTS = 2  # a process group that fails to connect is started once more
_GO = "labkit-workers-go"  # the store key the parent sets once every worker is up
_WORKER_CODE = "import labkit.workers as w; w._worker_main()"
# Set in a graded sandbox's kernel (grading/trusted/forkserver.py): the abstract socket on which the
# sandbox's PID 1, which has torch imported, forks workers.
_SERVER_ENV = "LABKIT_WORKER_SERVER"


class WorkerError(RuntimeError):
    """A worker process raised or died; the message holds its traceback."""

    def __init__(self, rank: int, world_size: int, detail: str):
        self.rank = rank
        self.world_size = world_size
        self.detail = detail
        super().__init__(f"worker rank {rank} of {world_size} failed:\n{detail}")


class _ConnectFailed(WorkerError):
    """A worker's process group could not connect, before ``fn`` ran on any rank."""


class DistributedUnavailable(RuntimeError):
    """This PyTorch has no torch.distributed: the cell that starts workers stops, in one line."""

    def _render_traceback_(self) -> list[str]:  # IPython shows this instead of a traceback
        return [str(self)]


def distributed_status() -> tuple[bool, str]:
    """(True, 'available (gloo[, nccl])') where torch.distributed works, else (False, one
    line saying what skips): some PyTorch builds (macOS ones among them) have none."""
    import torch.distributed as dist

    if not dist.is_available():
        return False, ("torch.distributed is not available in this PyTorch build "
                       "(torch.distributed.is_available() is False, as in some macOS builds): "
                       "cells that start worker processes (labkit.workers.run) skip with this line")
    backends = [b for b in ("gloo", "nccl") if getattr(dist, f"is_{b}_available")()]
    return True, f"available ({', '.join(backends) or 'no gloo or NCCL backend'})"


def default_backend(world_size: int) -> str:
    """'nccl' when torch sees a CUDA GPU for every rank, else 'gloo'."""
    import torch

    if torch.cuda.is_available() and torch.cuda.device_count() >= world_size:
        return "nccl"
    return "gloo"


def run(
    fn: Callable[..., Any],
    world_size: int,
    *args: Any,
    backend: str | None = None,
    timeout: float = 120.0,
    threads: int | None = None,
    startup_timeout: float = 300.0,
    worker_env: dict[str, str] | None = None,
    **kwargs: Any,
) -> list:
    """Call ``fn(rank, world_size, *args, **kwargs)`` in ``world_size`` processes.

    Returns the workers' return values as a list ordered by rank. ``timeout`` bounds the
    work (and every collective) from the moment all workers are up; ``startup_timeout``
    bounds getting them up. ``threads`` sets torch's intra-op threads per worker (default:
    the cores shared out evenly). ``worker_env`` adds variables to the workers' environment.
    """
    if not callable(fn):
        raise TypeError(f"fn must be a function taking (rank, world_size, ...), got {fn!r}")
    if isinstance(world_size, bool) or not isinstance(world_size, int) or world_size < 1:
        raise ValueError(f"world_size must be a positive int, got {world_size!r}")
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0:
        raise ValueError(f"timeout must be a positive number of seconds, got {timeout!r}")
    if isinstance(startup_timeout, bool) or not isinstance(startup_timeout, (int, float)) \
            or startup_timeout <= 0:
        raise ValueError("startup_timeout must be a positive number of seconds, "
                         f"got {startup_timeout!r}")
    available, detail = distributed_status()
    if not available:
        raise DistributedUnavailable(detail)
    backend = backend or default_backend(world_size)
    if backend not in ("gloo", "nccl"):
        raise ValueError(f"backend must be 'gloo' or 'nccl', got {backend!r}")
    if threads is None:
        threads = max(1, (os.cpu_count() or 1) // world_size)

    import cloudpickle

    try:
        payload = cloudpickle.dumps((fn, args, kwargs))
    except Exception as exc:
        raise TypeError(
            f"could not send {getattr(fn, '__name__', fn)!r} and its arguments to the workers "
            f"({type(exc).__name__}: {exc}). Everything the function uses from the notebook "
            "must be picklable: pass data as arguments, and create widgets, files or "
            "locks inside the function."
        ) from exc

    for attempt in range(_CONNECT_ATTEMPTS):
        try:
            return _run_once(payload, world_size, backend, threads, timeout, startup_timeout,
                             worker_env)
        except _ConnectFailed as exc:
            # gloo's full-mesh connect can lose a connection on a busy machine ("Connection
            # closed by peer"); no rank has run fn yet, so starting them again is safe.
            if attempt + 1 == _CONNECT_ATTEMPTS:
                raise
            last_line = exc.detail.strip().splitlines()[-1] if exc.detail.strip() else ""
            print(f"labkit.workers: the {world_size} workers could not connect ({last_line}); "
                  "starting them again", file=sys.stderr, flush=True)
    raise AssertionError("unreachable")


def _run_once(payload, world_size, backend, threads, timeout, startup_timeout, worker_env):
    store = _rendezvous_store(world_size + 1, startup_timeout)
    procs: list[subprocess.Popen] = []
    conns: list[Connection] = []
    try:
        for rank in range(world_size):
            proc, conn = _start_worker(rank, world_size, backend, store.port, threads, timeout,
                                       startup_timeout, worker_env)
            procs.append(proc)
            conns.append(conn)
            proc.stdin.write(payload)
            proc.stdin.close()
        return _collect(procs, conns, world_size, timeout, store, startup_timeout)
    finally:
        _stop(procs)
        for conn in conns:
            conn.close()
        del store


def _rendezvous_store(world_size: int, startup_timeout: float):
    """The parent's rendezvous store, on a loopback port the OS picks: no port clash.

    TCPStore left to bind on its own listens on every address of the machine, IPv6 first,
    so the workers' connections arrive as ``::ffff:127.0.0.1``; naming each one, torch
    asks DNS about that address, which fails without a network (the sandbox) and prints
    a warning per worker. A socket bound to 127.0.0.1 is reachable from this machine only
    and named from /etc/hosts."""
    import socket

    import torch.distributed as dist

    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        listener.bind((_HOST, 0))
        listener.listen(max(world_size, 64))
        port = listener.getsockname()[1]
    except BaseException:
        listener.close()
        raise
    return dist.TCPStore(_HOST, port, world_size, True, master_listen_fd=listener.detach(),
                         timeout=datetime.timedelta(seconds=startup_timeout),
                         wait_for_workers=False)


def _start_worker(rank, world_size, backend, port, threads, timeout, startup_timeout, worker_env=None):
    read_fd, write_fd = os.pipe()
    env = dict(os.environ, **(worker_env or {}))
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    argv = [str(a) for a in (rank, world_size, backend, port, threads, timeout, write_fd,
                             startup_timeout)]
    command = [sys.executable, "-c", _WORKER_CODE, *argv]
    server = os.environ.get(_SERVER_ENV)
    if server:  # a graded sandbox: the worker is forked from its PID 1 (_fork_client)
        command = [sys.executable, "-c", "import labkit.workers as w; w._fork_client()",
                   server, str(write_fd), *argv]
    try:
        proc = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            pass_fds=(write_fd,),
            env=env,
            start_new_session=True,
        )
    except BaseException:
        os.close(read_fd)
        raise
    finally:
        os.close(write_fd)
    return proc, Connection(read_fd, writable=False)


def _collect(procs, conns, world_size: int, timeout: float, store, startup_timeout: float) -> list:
    deadline = time.monotonic() + startup_timeout  # until every worker is up
    ready: set[int] = set()
    results: dict[int, Any] = {}
    open_conns = {conn: rank for rank, conn in enumerate(conns)}
    while len(results) < world_size:
        remaining = deadline - time.monotonic()
        if remaining <= 0 and len(ready) < world_size:
            raise TimeoutError(
                f"only {len(ready)} of the {world_size} workers started within "
                f"{startup_timeout:g} s (Python, torch and the rendezvous); they were stopped. "
                "On a busy machine pass a larger startup_timeout= to labkit.workers.run."
            )
        if remaining <= 0:
            raise TimeoutError(
                f"the {world_size} workers did not finish within {timeout:g} s and were "
                "stopped. If the work needs longer, pass a larger timeout= to "
                "labkit.workers.run; if it should be quick, look for a rank that waits "
                "on a send or collective the others never make."
            )
        for conn in wait(list(open_conns), timeout=min(remaining, 0.5)):
            rank = open_conns[conn]
            try:
                kind, body = pickle.loads(conn.recv_bytes())
            except (EOFError, OSError):
                # The worker is gone without a word: a crash, os._exit or a signal.
                del open_conns[conn]
                if rank not in results:
                    code = procs[rank].wait()
                    raise WorkerError(rank, world_size, _describe_exit(code)) from None
                continue
            if kind == "ready":
                ready.add(rank)
                if len(ready) == world_size:  # every worker is up: the work's clock starts
                    store.set(_GO, "1")
                    deadline = time.monotonic() + timeout
            elif kind == "out":
                stream = sys.stderr if body[0] == "stderr" else sys.stdout
                print(f"[rank {rank}] {body[1]}", file=stream, flush=True)
            elif kind == "ok":
                results[rank] = body
            elif kind == "error":
                raise WorkerError(rank, world_size, body)
            elif kind == "connect-error":
                raise _ConnectFailed(rank, world_size, body)
    return [results[r] for r in range(world_size)]


def _describe_exit(code: int) -> str:
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"the process was killed by {name} before it returned (no Python traceback)."
    return f"the process exited with code {code} before it returned (no Python traceback)."


def _stop(procs: list[subprocess.Popen]) -> None:
    """End every worker and anything it started: SIGTERM, then SIGKILL after a grace period."""
    for p in procs:
        _signal_group(p, signal.SIGTERM)
    end = time.monotonic() + _GRACE_SECONDS
    for p in procs:
        try:
            p.wait(max(0.0, end - time.monotonic()))
        except subprocess.TimeoutExpired:
            pass
    for p in procs:
        _signal_group(p, signal.SIGKILL)
        p.wait()


def _signal_group(proc: subprocess.Popen, sig: int) -> None:
    try:
        os.killpg(proc.pid, sig)  # the worker leads its own session and process group
    except (ProcessLookupError, PermissionError):
        pass


class _ConnWriter:
    """A text stream that forwards whole lines to the parent."""

    def __init__(self, conn: Connection, name: str):
        self.conn, self.name = conn, name
        self.buffer = ""

    def write(self, text: str) -> int:
        self.buffer += text
        while "\n" in self.buffer:
            line, self.buffer = self.buffer.split("\n", 1)
            _send(self.conn, "out", (self.name, line))
        return len(text)

    def flush(self) -> None:
        if self.buffer:
            _send(self.conn, "out", (self.name, self.buffer))
            self.buffer = ""

    def isatty(self) -> bool:
        return False


def _send(conn: Connection, kind: str, body: Any) -> None:
    # Plain pickle: torch's multiprocessing pickler would share tensors through file
    # descriptors that die with the worker.
    conn.send_bytes(pickle.dumps((kind, body)))


def _libc():
    try:
        return ctypes.CDLL("libc.so.6", use_errno=True)
    except OSError:
        return None


def _die_with_parent() -> None:
    """Ask Linux to kill this process when the process that started it dies."""
    libc = _libc()
    if libc is not None:
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


# glibc reads these from the environment when a process starts. A worker forked in a graded
# sandbox started before its environment was set: they are applied to it (mallopt) as it
# starts work, which changes nothing in a fresh worker that read them already.
_MALLOPT = {"MALLOC_TRIM_THRESHOLD_": -1, "MALLOC_TOP_PAD_": -2, "MALLOC_MMAP_THRESHOLD_": -3,
            "MALLOC_MMAP_MAX_": -4, "MALLOC_ARENA_MAX": -8}


def _malloc_as_told() -> None:
    libc = _libc()
    for name, param in _MALLOPT.items():
        value = os.environ.get(name, "")
        if libc is not None and value.isdigit():
            libc.mallopt(param, int(value))


def process_name(rank: int) -> str:
    """The name (``/proc/<pid>/comm``, what ``ps`` and ``top`` show) of the worker of
    ``rank``, however it was started: afresh, or forked in a graded sandbox."""
    return f"labkit-rank{rank}"


def _name_this_process(name: str) -> None:
    libc = _libc()
    if libc is not None:
        libc.prctl(15, name.encode()[:15])  # PR_SET_NAME


def _worker_main() -> None:
    """Entry point of a worker process (argv from ``_start_worker``, payload on stdin).

    It ends without Python's finalization, as a forked worker does (grading/trusted/forkserver.py):
    a thread of gloo that runs Python (a future's callback, DDP's hooks) when the
    interpreter tears down is killed inside C++ code, and the process aborts with
    "terminate called without an active exception" or "Fatal Python error" on the
    learner's stderr after its result was sent. As at a normal exit, atexit's handlers run
    and every file still open is flushed first."""
    import atexit
    import gc

    code = _work()
    try:
        gc.collect()
        atexit._run_exitfuncs()
    finally:
        try:
            _flush_open_files()
        finally:
            os._exit(code)


def _flush_open_files() -> None:
    import gc
    import io

    for obj in gc.get_objects():  # sys.stdout here is the pipe to the parent, closed by now
        try:
            if isinstance(obj, io.IOBase) and not obj.closed:
                obj.flush()
        except Exception:  # noqa: BLE001 (a file or pipe closed at the other end, a dead proxy)
            pass


def _work() -> int:
    """The worker's work: 0 when its result was sent, 1 when its error was."""
    _die_with_parent()
    rank, world_size, backend, port, threads, timeout, fd, startup = sys.argv[1:9]
    rank, world_size, port, threads, fd = map(int, (rank, world_size, port, threads, fd))
    _name_this_process(process_name(rank))
    _malloc_as_told()
    timeout = datetime.timedelta(seconds=float(timeout))
    startup = datetime.timedelta(seconds=float(startup))
    conn = Connection(fd, readable=False)
    out, err = _ConnWriter(conn, "stdout"), _ConnWriter(conn, "stderr")
    sys.stdout, sys.stderr = out, err
    dist = None
    try:
        payload = sys.stdin.buffer.read()
        import cloudpickle
        import torch
        import torch.distributed as dist

        torch.set_num_threads(threads)
        store = dist.TCPStore(_HOST, port, world_size + 1, False, timeout=startup)
        _send(conn, "ready", None)
        store.wait([_GO])  # the parent says go once every worker is up
        store.set_timeout(timeout)
        if backend == "nccl":
            torch.cuda.set_device(rank % torch.cuda.device_count())
        try:
            dist.init_process_group(
                backend, store=store, rank=rank, world_size=world_size, timeout=timeout
            )
        except RuntimeError:
            err.flush()
            _send(conn, "connect-error", traceback.format_exc())
            return 1
        fn, args, kwargs = cloudpickle.loads(payload)
        result = fn(rank, world_size, *args, **kwargs)
        out.flush()
        err.flush()
        try:
            message = pickle.dumps(("ok", result))
        except Exception as exc:
            raise TypeError(
                f"rank {rank} returned a value that cannot be sent back ({exc}); return "
                "tensors, numbers, lists or dicts of them"
            ) from exc
        conn.send_bytes(message)
        return 0
    except BaseException:
        out.flush()
        err.flush()
        _send(conn, "error", traceback.format_exc())
        return 1
    finally:
        if dist is not None and dist.is_initialized():
            try:
                dist.destroy_process_group()
            except Exception:
                pass
        conn.close()


def _fork_client() -> None:
    """The worker's process as ``run`` sees it, in a graded sandbox: asks the sandbox's
    PID 1 to fork the worker (``python -c _WORKER_CODE args``, with this process's
    environment, folder, standard streams and result pipe), relays SIGINT and SIGTERM to
    it, and ends as it ends (its exit code, or the signal that killed it). If the server
    cannot be reached, this process becomes the worker, started afresh."""
    import json
    import socket
    import struct

    server, result_fd, *argv = sys.argv[1:]
    _die_with_parent()  # the kernel gone: this process goes, and the server kills the worker
    fds = [0, 1, 2, int(result_fd)]
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect("\0" + server)
    except OSError:
        os.execv(sys.executable, [sys.executable, "-c", _WORKER_CODE, *argv])
    ask = json.dumps({"code": _WORKER_CODE, "args": argv, "env": dict(os.environ),
                      "cwd": os.getcwd(), "fds": fds}).encode()
    try:
        socket.send_fds(sock, [struct.pack("!I", len(ask)) + ask], fds)
    except OSError:
        pass           # refused before it was asked: the reply says why
    replies = sock.makefile("rb")
    line = replies.readline()
    if not line.startswith(b"pid "):  # said where run() raises it
        why = line[len(b"refused "):].decode().strip() if line.startswith(b"refused ") \
            else "its start failed (the kernel's stderr may say why)"
        _send(Connection(int(result_fd), readable=False), "error",
              f"the sandbox did not start this worker: {why}")
        os._exit(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)   # the worker holds the payload pipe and the result pipe now: their
    os.close(null)     # ends must close when it does
    os.close(int(result_fd))
    line = line.split()
    pid = int(line[1])

    def relay(sig, _frame):
        try:
            os.killpg(pid, sig)  # the worker leads its own process group
        except OSError:
            pass

    signal.signal(signal.SIGINT, relay)
    signal.signal(signal.SIGTERM, relay)
    line = replies.readline().split()
    code = int(line[1]) if line[:1] == [b"exit"] else 1
    if code < 0:  # killed by a signal: end the same way, so run() names the signal
        if -code != signal.SIGKILL:
            signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
    os._exit(code & 0xFF)
