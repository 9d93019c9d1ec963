"""The grader's own kernels listen on Unix sockets in a private folder (grading/trusted/kernels.py)."""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

from grading.course import REPO
from grading.trusted.judge import JudgedExecute
from grading.trusted.kernels import start_new_kernel
from grading.trusted.preprocessors import RobustExecute


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


def test_a_killed_process_private_folder_goes_with_the_next_one_made():
    """A grading process killed at its time limit runs no exit handler: its folder (kernel
    sockets, hosts file) is removed by the next process that makes one; a live one's stays."""
    import signal
    import subprocess
    import sys

    make = "from grading.trusted.kernels import private_folder; print(private_folder(), flush=True)"
    killed = subprocess.Popen([sys.executable, "-c", make + "; import time; time.sleep(600)"],
                              stdout=subprocess.PIPE, text=True, cwd=REPO)
    alive = subprocess.Popen([sys.executable, "-c", make + "; import time; time.sleep(600)"],
                             stdout=subprocess.PIPE, text=True, cwd=REPO)
    kept = None
    try:
        gone, kept = Path(killed.stdout.readline().strip()), Path(alive.stdout.readline().strip())
        killed.send_signal(signal.SIGKILL)
        killed.wait(timeout=30)
        assert gone.is_dir() and kept.is_dir()
        fresh = subprocess.run([sys.executable, "-c", make], capture_output=True, text=True,
                               cwd=REPO, timeout=60)
        assert fresh.returncode == 0, fresh.stderr
        assert not gone.exists(), "a killed process's folder was left"
        assert kept.is_dir(), "a live process's folder was removed"
        assert not Path(fresh.stdout.strip()).exists(), "an ended process's own folder was left"
    finally:
        for p in (killed, alive):
            p.kill()
            p.wait(timeout=30)
        if kept is not None:
            shutil.rmtree(kept, ignore_errors=True)
