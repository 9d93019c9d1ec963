"""Run time of the solution notebook 03_allreduce, normal mode and grading mode.

    python benchmarks/03_notebook_runtime.py

Executes solutions/03_allreduce/03_allreduce.ipynb top to bottom with
nbclient (kernel start included), once as a learner would and once with
NBGRADER_EXECUTION set (what nbgrader does), and prints the wall seconds of each, the
summed cell time and the slowest cells. Targets: about a minute in normal mode, <= 20 s
of cell time in grading mode. Timings on a shared machine are noisy; run it twice.
"""

from __future__ import annotations

import os
import sys
import time
from datetime import datetime
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent
NAME = "03_allreduce"
NOTEBOOK = ROOT / "solutions" / NAME / f"{NAME}.ipynb"


def cell_times(nb: nbformat.NotebookNode) -> list[tuple[float, str]]:
    """(seconds, cell id) of every executed cell, from nbclient's recorded timing."""
    times = []
    for cell in nb.cells:
        t = cell.get("metadata", {}).get("execution", {})
        if "iopub.execute_input" in t and "shell.execute_reply" in t:
            start = datetime.fromisoformat(t["iopub.execute_input"].replace("Z", "+00:00"))
            end = datetime.fromisoformat(t["shell.execute_reply"].replace("Z", "+00:00"))
            times.append(((end - start).total_seconds(), cell.get("id", "?")))
    return times


def run(grading: bool) -> tuple[float, list[tuple[float, str]]]:
    """(wall seconds, per-cell seconds) of one execution of the notebook."""
    nb = nbformat.read(NOTEBOOK, as_version=4)
    env = dict(os.environ)
    try:
        if grading:
            os.environ["NBGRADER_EXECUTION"] = "autograde"
        else:
            os.environ.pop("NBGRADER_EXECUTION", None)
        start = time.perf_counter()
        NotebookClient(nb, timeout=600, kernel_name="python3", record_timing=True,
                       resources={"metadata": {"path": str(NOTEBOOK.parent)}}).execute()
        wall = time.perf_counter() - start
    finally:
        os.environ.clear()
        os.environ.update(env)
    return wall, cell_times(nb)


def main() -> int:
    for label, grading in [("normal mode", False), ("grading mode", True)]:
        wall, times = run(grading)
        slowest = ", ".join(f"{cid} {s:.1f} s" for s, cid in sorted(times, reverse=True)[:3])
        print(f"{NAME} {label:13}: {wall:6.1f} s wall (kernel start included), "
              f"{sum(s for s, _ in times):6.1f} s in cells; slowest: {slowest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
