"""Worker processes that keep a gloo group across calls (runs where the learner's code runs).

``Pool(size)``: ``size`` worker processes (``labkit.workers``) with a ``torch.distributed`` gloo
group, kept across calls, so a test can call one function on many inputs without paying a
process start each time. ``call(fn, per_rank_args)`` runs ``fn(*per_rank_args[rank])`` on
every rank and returns, per rank, the arguments after the call and which of them ``fn``
returned. Results come back over a Unix socket, not TCP. What ``fn`` returned stays alive in
the worker until its next job, so that a meter can read the memory it holds
(``Pool.release`` drops it). ``shared_pool(size)`` keeps one per size per process.

In trusted grading a pool lives in the learner's sandboxed kernel and everything it reports
is the learner's process speaking: the meters (``labkit.judge.traffic``) count its bytes and
memory from outside, about processes the sandbox's own record names.
"""

from __future__ import annotations

import os
import pickle
import shutil
import socket
import tempfile
import threading
import time
import traceback
from typing import Any, Callable

__all__ = ["Pool", "shared_pool"]

_MARK = "labkit-traffic-pool"


# ------------------------------------------------------------------------- the pool
def _send_msg(sock: socket.socket, obj: Any) -> None:
    body = pickle.dumps(obj)
    sock.sendall(len(body).to_bytes(8, "little") + body)


def _recv_msg(sock: socket.socket) -> Any:
    """One message; ConnectionError once the other side has closed."""
    from labkit.judge.wire import _recv_exactly

    return pickle.loads(_recv_exactly(sock, int.from_bytes(_recv_exactly(sock, 8), "little")))


def _serve(rank: int, world_size: int, address: str) -> str:
    """A pool worker (runs under labkit.workers.run): takes jobs from the pool's socket."""
    import datetime

    import cloudpickle
    import torch.distributed as dist
    from torch.distributed import distributed_c10d as c10d

    store = c10d._get_default_store()
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.connect(address)
    _send_msg(conn, ("hello", rank, os.getpid()))
    generation = 0
    in_group = True
    kept = None  # what the last call returned, alive until the next job (Pool.release)
    while True:
        try:
            job = _recv_msg(conn)
        except ConnectionError:
            return "closed"
        kind = job[0]
        try:
            if kind == "stop":
                return "stopped"
            if kind == "settle":
                _settle()
                _send_msg(conn, ("ok", None))
                continue
            kept = None
            if kind == "release":
                _settle()
                _send_msg(conn, ("ok", None))
            elif kind == "group":
                k = job[1]
                generation += 1
                if in_group:
                    dist.destroy_process_group()
                in_group = rank < k
                if in_group:
                    dist.init_process_group(
                        "gloo", store=dist.PrefixStore(f"{_MARK}-{generation}-{k}", store),
                        rank=rank, world_size=k, timeout=datetime.timedelta(seconds=job[2]))
                    dist.barrier()  # every connection made before the call is measured
                _send_msg(conn, ("ok", None))
            elif kind == "call":
                fn, args = cloudpickle.loads(job[1]), cloudpickle.loads(job[3])
                report = job[2]
                del job  # its bytes are not what the call keeps
                try:
                    returned = fn(*args)
                except NotImplementedError as exc:
                    _send_msg(conn, ("not implemented", str(exc)))
                    continue
                which = next((i for i, a in enumerate(args) if returned is a), None)
                _send_msg(conn, ("ok", {"args": list(args) if report else None, "returned": which,
                                        "returned_type": type(returned).__name__}))
                kept = returned  # noqa: F841 (held, not read: its memory is measured)
                del fn, args, returned
        except BaseException:  # noqa: BLE001 (goes back to the pool)
            _send_msg(conn, ("error", traceback.format_exc()))


# glibc's allocator, fixed: every block of 128 KiB or more is a mapping of its own, given back to
# the system when freed (by default the threshold moves up as big blocks are freed, and later
# ones come from heaps that keep freed pages), so that resident memory follows what is alive.
_MALLOC_ENV = {"MALLOC_MMAP_THRESHOLD_": "131072", "MALLOC_TRIM_THRESHOLD_": "131072"}


def _settle() -> None:
    """Free what nothing refers to and give the heap's free pages back to the system, so that
    the process's resident memory is what it keeps alive."""
    import ctypes
    import gc

    gc.collect()
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


class Pool:
    """``size`` worker processes with a gloo process group, kept across calls."""

    def __init__(self, size: int, timeout: float = 60.0, startup_timeout: float = 300.0):
        if isinstance(size, bool) or not isinstance(size, int) or size < 1:
            raise ValueError(f"size must be a positive int, got {size!r}")
        import labkit.workers

        self.size, self.timeout = size, float(timeout)
        self.world_size = size
        self._folder = tempfile.mkdtemp(prefix="traffic-pool-")
        address = os.path.join(self._folder, "pool")
        self._server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._server.bind(address)
        self._server.listen(size)
        self._box: dict = {}

        def launch():
            try:
                self._box["out"] = labkit.workers.run(
                    _serve, size, address, backend="gloo", timeout=24 * 3600,
                    startup_timeout=startup_timeout, threads=1, worker_env=_MALLOC_ENV)
            except BaseException as exc:  # noqa: BLE001 (reported by the next call)
                self._box["error"] = exc
            finally:
                try:
                    self._server.close()
                except OSError:
                    pass

        self._thread = threading.Thread(target=launch, daemon=True, name="traffic-pool")
        self._thread.start()
        self._conns: list[socket.socket | None] = [None] * size
        self._pids = [0] * size
        self._server.settimeout(1.0)
        deadline = time.monotonic() + startup_timeout
        while None in self._conns:
            if "error" in self._box or time.monotonic() > deadline:
                self.close()
                raise RuntimeError(f"the pool's {size} workers did not start: "
                                   f"{self._box.get('error', 'timed out')}")
            try:
                conn, _ = self._server.accept()
            except socket.timeout:
                continue
            conn.settimeout(None)
            _, rank, pid = _recv_msg(conn)
            self._conns[rank], self._pids[rank] = conn, pid

    def pids(self) -> list[int]:
        """Process ids of the workers, by rank (as this process sees them)."""
        return list(self._pids)

    def _ask(self, ranks: range, jobs: list) -> list:
        if "error" in self._box or any(c is None for c in self._conns):
            raise RuntimeError(f"the pool's workers are gone: {self._box.get('error', 'closed')}")
        for r in ranks:
            _send_msg(self._conns[r], jobs[r - ranks.start])
        replies, deadline = [], time.monotonic() + self.timeout
        for r in ranks:
            conn = self._conns[r]
            conn.settimeout(max(0.01, deadline - time.monotonic()))
            try:
                replies.append(_recv_msg(conn))
            except (socket.timeout, OSError):
                self.close()
                raise TimeoutError(
                    f"rank {r} of {len(ranks)} did not finish within {self.timeout:g} s (or its "
                    "process died): look for a receive that no rank sends to, or a blocking "
                    "send that waits for a receive that comes after it; the pool was stopped"
                ) from None
            finally:
                if self._conns[r] is not None:
                    conn.settimeout(None)
        for r, (kind, body) in zip(ranks, replies):
            if kind == "not implemented":
                raise NotImplementedError(body)
            if kind == "error":
                raise RuntimeError(f"rank {r} of {len(ranks)} raised:\n{body}")
        return [body for _, body in replies]

    def group(self, world_size: int) -> None:
        """Make the default process group of ranks 0..world_size-1 (the others wait)."""
        if isinstance(world_size, bool) or not isinstance(world_size, int) \
                or not 1 <= world_size <= self.size:
            raise ValueError(f"world_size must be an int in 1..{self.size}, got {world_size!r}")
        if world_size == self.world_size:
            return
        self._ask(range(self.size), [("group", world_size, self.timeout + 60)] * self.size)
        self.world_size = world_size

    def call(self, fn: Callable, per_rank_args: list, args_back: bool = True) -> list[dict]:
        """Run ``fn(*per_rank_args[rank])`` on every rank of the current group. Per rank:
        ``args`` (the arguments after the call; None with ``args_back=False``, which spares
        sending them back), ``returned`` (the index of the argument ``fn`` returned, or None)
        and ``returned_type``."""
        import cloudpickle

        if len(per_rank_args) != self.world_size:
            raise ValueError(f"per_rank_args must hold {self.world_size} tuples (one per rank), "
                             f"got {len(per_rank_args)}")
        # the function once for every rank (cloudpickle looks through every loaded module for
        # each function it pickles by value: a quarter of a second for a notebook's answer)
        code = cloudpickle.dumps(fn)
        jobs = [("call", code, bool(args_back), cloudpickle.dumps(tuple(a))) for a in per_rank_args]
        return self._ask(range(self.world_size), jobs)

    def settle(self) -> None:
        """On every worker: collect garbage and give free heap pages back to the system, so
        that its resident memory is what it keeps alive (what the last call returned
        included)."""
        self._ask(range(self.size), [("settle",)] * self.size)

    def release(self) -> None:
        """Drop what the last call returned on every worker (each keeps it until its next job,
        so that what it holds can be measured from outside: ``Meter.resident``), collect
        garbage and give free heap pages back to the system."""
        self._ask(range(self.size), [("release",)] * self.size)

    def close(self) -> None:
        """Stop the workers (they also end with this process)."""
        for i, conn in enumerate(self._conns):
            if conn is not None:
                try:
                    _send_msg(conn, ("stop",))
                    conn.close()
                except OSError:
                    pass
                self._conns[i] = None
        try:
            self._server.close()
        except OSError:
            pass
        self._thread.join(3)
        if self._thread.is_alive():  # a worker stuck in a receive: end it (each leads its own process group)
            import signal
            for pid in self._pids:
                if pid <= 0:  # never started: killpg(0) would be our own group
                    continue
                try:
                    os.killpg(pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError, OSError):
                    pass
            self._thread.join(15)
        shutil.rmtree(self._folder, ignore_errors=True)

    @property
    def alive(self) -> bool:
        return self._thread.is_alive() and None not in self._conns


_pools: dict[int, Pool] = {}


def shared_pool(size: int) -> Pool:
    """One pool of ``size`` workers per process, started on first use, kept for later tests."""
    pool = _pools.get(size)
    if pool is None or not pool.alive:
        pool = _pools[size] = Pool(size)
    pool.group(size)
    return pool
