"""Notebook 03's failure modes in real processes: a failing or deadlocked ring leaves no process behind."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

from labkit import workers


def _alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie, finished but not yet reaped, counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, IndexError):
        return False


def _gone_soon(pids: list[int], within: float = 5.0) -> list[int]:
    """The pids still alive after ``within`` seconds."""
    end = time.monotonic() + within
    while time.monotonic() < end and any(_alive(p) for p in pids):
        time.sleep(0.05)
    return [p for p in pids if _alive(p)]


def _ring_step_then_fail(rank, world_size, folder):
    """Every rank posts a ring receive; rank 1 raises instead, so the others wait for ever."""
    import torch
    import torch.distributed as dist

    child = subprocess.Popen(["sleep", "300"])  # something the worker started itself
    Path(folder, f"{rank}.pids").write_text(f"{os.getpid()} {child.pid}")
    if rank == 1:
        deadline = time.monotonic() + 30  # fail only once every rank is up and has its child
        while len(list(Path(folder).glob("*.pids"))) < world_size and time.monotonic() < deadline:
            time.sleep(0.05)
        raise ValueError("rank 1 fails in the middle of the ring")
    buf = torch.zeros(4)
    dist.recv(buf, (rank - 1) % world_size)  # never satisfied: its left neighbour is dead or waiting
    return buf


def _ring_deadlock(rank, world_size, folder):
    """Every rank receives before it sends: the classic ring deadlock."""
    import torch
    import torch.distributed as dist

    Path(folder, f"{rank}.pids").write_text(str(os.getpid()))
    buf = torch.zeros(4)
    dist.recv(buf, (rank - 1) % world_size)
    dist.send(buf, (rank + 1) % world_size)


def _pids(folder: Path, expected: int) -> list[int]:
    files = sorted(folder.glob("*.pids"))
    assert len(files) == expected, f"expected {expected} workers to report their pid, found {len(files)}"
    return [int(p) for f in files for p in f.read_text().split()]


def _since_work_began(folder: Path) -> float:
    """Seconds since the first worker began the work (it wrote its pid file then): the
    workers' start-up (interpreters, torch imports) is not counted, so a loaded machine's
    slow imports change nothing here."""
    return time.time() - min(f.stat().st_mtime for f in folder.glob("*.pids"))


def test_failing_rank_raises_its_traceback_and_leaves_nothing(tmp_path):
    with pytest.raises(workers.WorkerError) as info:
        workers.run(_ring_step_then_fail, 3, str(tmp_path), backend="gloo", timeout=600)
    elapsed = _since_work_began(tmp_path)
    assert info.value.rank == 1, f"expected the failing rank 1 to be reported, got rank {info.value.rank}"
    assert "rank 1 fails in the middle of the ring" in str(info.value)
    # rank 1 waits up to 30 s for the others' pid files, then fails; the others would wait
    # for ever: the error must end the run, not the 600 s timeout.
    assert elapsed < 120, f"the error took {elapsed:.0f} s to surface; it must not wait for the timeout"
    pids = _pids(tmp_path, 3)
    assert len(pids) == 6
    left = _gone_soon(pids)
    assert not left, f"processes left behind after a worker failed: {left}"


def test_deadlocked_ring_times_out_and_leaves_nothing(tmp_path):
    # The parent's deadline and gloo's own receive timeout are both 8 s from the moment every
    # worker is up (start-up has its own limit): either may fire first.
    with pytest.raises((TimeoutError, workers.WorkerError)):
        workers.run(_ring_deadlock, 3, str(tmp_path), backend="gloo", timeout=8)
    elapsed = _since_work_began(tmp_path)
    assert elapsed < 60, f"a deadlock with timeout=8 took {elapsed:.0f} s to end once the work began"
    left = _gone_soon(_pids(tmp_path, 3))
    assert not left, f"processes left behind after a timeout: {left}"
