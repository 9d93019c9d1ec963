"""01_async_execution: the timeline widget draws one visible back-end bar per op (the bars
come from MXNet's profiler; a watcher thread saw results late, two at a time, and every
other bar came out zero wide)."""

from __future__ import annotations

import nbformat
import pytest
from nbclient import NotebookClient
from grading.trusted.preprocessors import IOPUB_TIMEOUT

from grading.course import SOLUTIONS
from grading.trusted.kernels import IpcKernelManager

NOTEBOOK = SOLUTIONS / "01_async_execution" / "01_async_execution.ipynb"

CHECK = """
from matplotlib.figure import Figure

for n, sync in ((1, False), (8, False), (11, True), (8, False)):
    fig = Figure(figsize=(8, 2.6))
    draw_timeline(fig, n, sync)
    ax = fig.axes[0]
    back = sorted((p for p in ax.patches if abs(p.get_y() + p.get_height() / 2 - 1) < 0.01),
                  key=lambda p: p.get_x())
    wide = [p for p in back if p.get_width() >= 0.002 * (ax.get_xlim()[1] - ax.get_xlim()[0])]
    assert len(back) == n, f"{n} ops (sync {sync}): {len(back)} back-end bars"
    assert len(wide) == n, (f"{n} ops (sync {sync}): only {len(wide)} back-end bars are wide "
                            f"enough to see: {[round(p.get_width(), 3) for p in back]} ms")
    ends = [p.get_x() + p.get_width() for p in back]
    assert all(b.get_x() >= e - 1e-3 for b, e in zip(back[1:], ends)), "the chain's bars overlap"
print("bars ok")
"""


@pytest.mark.slow
def test_timeline_draws_one_visible_back_end_bar_per_op(tmp_path):
    pytest.importorskip("mxnet")
    nb = nbformat.read(NOTEBOOK, as_version=4)
    upto = next(i for i, c in enumerate(nb.cells) if "def draw_timeline" in c.source)
    nb.cells = nb.cells[: upto + 1] + [nbformat.v4.new_code_cell(CHECK)]
    NotebookClient(nb, iopub_timeout=IOPUB_TIMEOUT, timeout=300, kernel_name="python3", kernel_manager_class=IpcKernelManager, allow_errors=True,
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = nb.cells[-1].outputs
    assert any("bars ok" in o.get("text", "") for o in outputs), [
        o.get("evalue", o.get("text", "")) for o in outputs]
