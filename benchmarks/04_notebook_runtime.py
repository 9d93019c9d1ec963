"""Run time of the solution notebook 04_number_formats, normal mode and grading mode.

    python benchmarks/04_notebook_runtime.py

Executes solutions/04_number_formats/04_number_formats.ipynb top to bottom with nbclient
(kernel start included), once as a learner would and once with NBGRADER_EXECUTION set
(what nbgrader does), and prints the wall seconds of each and the summed cell time.
Targets: about a minute in normal mode, <= 20 s of cell time in grading mode.
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
NOTEBOOK = ROOT / "solutions" / "04_number_formats" / "04_number_formats.ipynb"


def cell_seconds(nb: nbformat.NotebookNode) -> float:
    """Sum of the cells' execution times recorded by nbclient."""
    total = 0.0
    for cell in nb.cells:
        t = cell.get("metadata", {}).get("execution", {})
        if "iopub.execute_input" in t and "shell.execute_reply" in t:
            start = datetime.fromisoformat(t["iopub.execute_input"].replace("Z", "+00:00"))
            end = datetime.fromisoformat(t["shell.execute_reply"].replace("Z", "+00:00"))
            total += (end - start).total_seconds()
    return total


def run(grading: bool) -> tuple[float, float]:
    """(wall seconds, summed cell seconds) of one execution of the notebook."""
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
    return wall, cell_seconds(nb)


def main() -> int:
    for label, grading in [("normal mode", False), ("grading mode", True)]:
        wall, cells = run(grading)
        print(f"04_number_formats {label:13}: {wall:6.1f} s wall (kernel start included), "
              f"{cells:6.1f} s in cells")
    return 0


if __name__ == "__main__":
    sys.exit(main())
