"""What the judge reads about the learner's kernel from outside it (judge side).

The forked sandbox's record of its processes (written by its PID 1, grading/trusted/forkserver.py),
those processes' ids on this machine, the kernel's memory read through /proc/<pid>/mem,
tensors whose storage is a file the judge maps itself (``JudgeMapped``), and the time the
learner's processes wanted a CPU. The subject of each observation is named by the trusted side (the
sandbox's record, the judge's own files), never by the learner's kernel.
"""

from __future__ import annotations

import os
import time

from . import handles
from .handles import learner_side

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
    record = getattr(handles._session, "workers_record", "") if handles._session is not None else ""
    if not record:
        return None
    try:
        kernel, _ = sandbox_record(record)
        host = sandbox_host_pids(handles._session.pid, {kernel}).get(kernel) if kernel else None
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
        if handles._session is None:
            self._local = [t.detach().clone() for t in tensors]
            views = [t.transpose(-1, -2) for t in self._local] if transposed else list(self._local)
            self.there = [views]
            return
        folder = handles._session.folder
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
                if os.geteuid() == 0 and handles._session.uid != os.getuid():
                    os.fchown(fd, handles._session.uid, handles._session.uid)
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

        if handles._session is None:
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


def learner_runnable_seconds() -> float:
    """Seconds the learner's code wanted a CPU so far: in trusted grading read by the judge from
    /proc for every process of the learner's kernel (its worker processes included), as CPU time
    plus time spent waiting for a CPU, so that a busy loop counts in full on a loaded machine; in
    the learner's own kernel this process's CPU time (self-study: not a verdict)."""
    if handles._session is None:
        return time.process_time()
    return handles._session.runnable_seconds()
