"""The grader's own kernels listen on Unix sockets in a private folder (grading/kernels.py)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from grading.judge import JudgedExecute
from grading.kernels import start_new_kernel
from grading.preprocessors import RobustExecute


def test_a_kernel_on_private_sockets_runs_and_leaves_none_behind():
    km, kc = start_new_kernel()
    try:
        folder = Path(km.ip).parent
        assert km.transport == "ipc"
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700 and folder.stat().st_uid == os.getuid()
        assert len(list(folder.glob(Path(km.ip).name + "-*"))) == 5   # shell, iopub, ...
        reply = kc.execute_interactive("x = 6 * 7", timeout=60)
        assert reply["content"]["status"] == "ok"
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    assert not list(folder.glob(Path(km.ip).name + "-*"))


def test_an_unsandboxed_learner_kernel_is_not_on_tcp_either():
    """Judged with the sandbox off, or graded the way nbgrader does (COURSE_JUDGE=off)."""
    for executor in (JudgedExecute(sandbox="off", kernel_name="python3"),
                     RobustExecute(kernel_name="python3")):
        km = executor.create_kernel_manager()
        assert km.transport == "ipc" and Path(km.ip).parent.is_dir(), type(executor)
