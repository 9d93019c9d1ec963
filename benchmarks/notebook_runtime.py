"""Run time of every solution notebook, as a learner runs it and as nbgrader does.

    python benchmarks/notebook_runtime.py [NN_topic ...]

Executes each solution top to bottom with nbclient (kernel start included), once as a
learner would and once with NBGRADER_EXECUTION set (what nbgrader does), and prints the
wall seconds, the summed cell seconds and the slowest cell. Targets (DESIGN.md): about a
minute in normal mode; in grading mode a small fraction of that, since the test suite
grades each notebook several times.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from datetime import datetime
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grading.course import SOLUTIONS, assignments  # noqa: E402
from grading.trusted.kernels import IpcKernelManager  # noqa: E402


def cell_times(nb: nbformat.NotebookNode) -> list[tuple[float, int]]:
    """(seconds, cell index) of every executed cell, from nbclient's recorded timing."""
    times = []
    for index, cell in enumerate(nb.cells):
        t = cell.get("metadata", {}).get("execution", {})
        if "iopub.execute_input" in t and "shell.execute_reply" in t:
            start = datetime.fromisoformat(t["iopub.execute_input"].replace("Z", "+00:00"))
            end = datetime.fromisoformat(t["shell.execute_reply"].replace("Z", "+00:00"))
            times.append(((end - start).total_seconds(), index))
    return times


def run(path: Path, grading: bool) -> tuple[float, list[tuple[float, int]]]:
    """(wall seconds, per-cell times) of one execution of the notebook at ``path``."""
    nb = nbformat.read(path, as_version=4)
    env_before = os.environ.get("NBGRADER_EXECUTION")
    if grading:
        os.environ["NBGRADER_EXECUTION"] = "autograde"
    else:
        os.environ.pop("NBGRADER_EXECUTION", None)
    try:
        start = time.perf_counter()
        NotebookClient(nb, timeout=600, kernel_name="python3", kernel_manager_class=IpcKernelManager, record_timing=True,
                       resources={"metadata": {"path": str(path.parent)}}).execute()
        return time.perf_counter() - start, cell_times(nb)
    finally:
        if env_before is None:
            os.environ.pop("NBGRADER_EXECUTION", None)
        else:
            os.environ["NBGRADER_EXECUTION"] = env_before


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("names", nargs="*", metavar="assignment",
                   help="notebooks to run (default: every one in solutions/)")
    names = p.parse_args(argv).names or assignments()
    unknown = sorted(set(names) - set(assignments()))
    if unknown:
        p.error(f"no assignment {', '.join(unknown)} in solutions/ "
                f"(known: {', '.join(assignments())})")
    print(f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.1f} at start")
    print(f"{'notebook':22} {'mode':8} {'wall s':>7} {'cells s':>8}  slowest cell")
    for name in names:
        path = SOLUTIONS / name / f"{name}.ipynb"
        for label, grading in (("normal", False), ("grading", True)):
            wall, times = run(path, grading)
            slowest = max(times) if times else (0.0, -1)
            print(f"{name:22} {label:8} {wall:7.1f} {sum(t for t, _ in times):8.1f}  "
                  f"#{slowest[1]} ({slowest[0]:.1f} s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
