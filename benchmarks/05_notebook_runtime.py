"""Run time of the solution notebook 05_mixed_precision, normal mode and grading mode.

    python benchmarks/05_notebook_runtime.py

Executes solutions/05_mixed_precision/05_mixed_precision.ipynb top to bottom with nbclient
(kernel start included): once as a learner would, once with NBGRADER_EXECUTION set (as
nbgrader does). Prints wall seconds, summed cell seconds and the three slowest cells of
each. Targets: about a minute in normal mode, <= 20 s of cell time in grading mode.
Timings on a shared machine are noisy; run it twice.
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
NAME = "05_mixed_precision"
NOTEBOOK = ROOT / "solutions" / NAME / f"{NAME}.ipynb"


def _seconds(meta: dict) -> float | None:
    start, end = meta.get("iopub.execute_input"), meta.get("shell.execute_reply")
    if not (start and end):
        return None
    parse = lambda s: datetime.fromisoformat(s.replace("Z", "+00:00"))  # noqa: E731
    return (parse(end) - parse(start)).total_seconds()


def execute(grading: bool) -> tuple[float, list[tuple[float, str]]]:
    """(wall seconds, [(cell seconds, cell id)]) of one top-to-bottom execution."""
    nb = nbformat.read(NOTEBOOK, as_version=4)
    saved = os.environ.get("NBGRADER_EXECUTION")
    if grading:
        os.environ["NBGRADER_EXECUTION"] = "autograde"
    else:
        os.environ.pop("NBGRADER_EXECUTION", None)
    try:
        start = time.perf_counter()
        NotebookClient(nb, timeout=600, kernel_name="python3", record_timing=True,
                       resources={"metadata": {"path": str(NOTEBOOK.parent)}}).execute()
        wall = time.perf_counter() - start
    finally:
        if saved is None:
            os.environ.pop("NBGRADER_EXECUTION", None)
        else:
            os.environ["NBGRADER_EXECUTION"] = saved
    cells = [(s, c.get("id", "?")) for c in nb.cells
             if c.cell_type == "code" and (s := _seconds(c.metadata.get("execution", {}))) is not None]
    return wall, cells


def main() -> int:
    print(f"{NAME}: executing {NOTEBOOK.relative_to(ROOT)} with nbclient on {os.cpu_count()} CPU cores")
    for label, grading in (("normal mode", False), ("grading mode", True)):
        wall, cells = execute(grading)
        slowest = ", ".join(f"{cid} {s:.1f} s" for s, cid in sorted(cells, reverse=True)[:3])
        print(f"{label:>13}: {wall:6.1f} s wall, {sum(s for s, _ in cells):6.1f} s in cells "
              f"(slowest: {slowest})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
