"""Helpers of the sandbox tests: run Python in a sandbox or outside it, list a uid's
processes, and the marks that skip what this machine cannot show."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from grading.trusted import limits as sandbox_limits
from grading.trusted import sandbox


MARK = "sandbox-test-orphan-7f3a"


def run_py(code: str, work: Path | None, env: dict | None = None, timeout: float = 120,
           limits: sandbox_limits.Limits = sandbox_limits.Limits(), cgroups: bool = True):
    """Run ``code`` with the venv's Python, in a sandbox (work given) or outside it."""
    import tempfile

    script = (work or Path(tempfile.mkdtemp(prefix="probe-"))) / "probe.py"
    script.write_text(textwrap.dedent(code))
    os.chmod(script, 0o644)
    argv = [sys.executable, str(script)]
    if work is None:
        return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=env)
    with sandbox.Sandbox(limits, cgroups=cgroups) as sb:
        return sb.run(argv, work, env=env, capture_output=True, text=True, timeout=timeout)


def uid_processes(uid: int) -> list[int]:
    """Processes on this machine running as ``uid``."""
    out = []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                if entry.stat().st_uid == uid:
                    out.append(int(entry.name))
            except OSError:
                pass
    return out


needs_cgroups = pytest.mark.skipif(
    not {"memory", "pids", "cpu"} <= set(sandbox_limits.cgroup_support()[1]),
    reason=f"no usable cgroups here: {sandbox_limits.cgroup_support()[2]}")
needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="a uid per sandbox needs root")


def _still_running(mark: str, pids=(), wait: float = 10) -> list[str]:
    """Processes whose command line holds ``mark``, and those of ``pids``, still running (not
    zombies) after waiting up to ``wait`` seconds for them to end."""
    deadline = time.monotonic() + wait
    while True:
        found = subprocess.run(["pgrep", "-f", mark], capture_output=True, text=True).stdout.split()
        left = [p for p in dict.fromkeys([*found, *pids]) if _running(int(p))]
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.2)


def _running(pid: int) -> bool:
    """A process that exists and is not a zombie waiting to be reaped."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except OSError:
        return False


def _ancestry(pid: int) -> str:
    out = []
    while pid > 1:
        try:
            with open(f"/proc/{pid}/stat") as f:
                pid = int(f.read().rsplit(")", 1)[1].split()[1])
        except OSError:
            break
        out.append(str(pid))
    return " ".join(out)
