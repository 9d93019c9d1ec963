"""The timeline widget of 01_async_execution renders and redraws when a control moves."""

from __future__ import annotations

import nbformat
import pytest
from nbclient import NotebookClient

from grading.course import SOLUTIONS

NOTEBOOK = SOLUTIONS / "01_async_execution" / "01_async_execution.ipynb"

CHECK = """
before = timeline_widget.image.value
bundle = timeline_widget._repr_mimebundle_()
assert "image/png" in bundle, f"no static PNG copy in {sorted(bundle)}"
timeline_widget.controls["sync_each"].value = True
after_sync = timeline_widget.image.value
timeline_widget.controls["n_ops"].value = 3
after_ops = timeline_widget.image.value
assert len(before) > 1000 and before != after_sync != after_ops, "the figure did not change"
print("widget ok")
"""


@pytest.mark.slow
def test_timeline_widget_renders_and_redraws(tmp_path):
    pytest.importorskip("mxnet")
    nb = nbformat.read(NOTEBOOK, as_version=4)
    upto = next(i for i, c in enumerate(nb.cells) if "timeline_widget" in c.source
                and c.cell_type == "code")
    nb.cells = nb.cells[: upto + 1] + [nbformat.v4.new_code_cell(CHECK)]
    NotebookClient(nb, timeout=120, kernel_name="python3",
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = nb.cells[-1].outputs
    assert any("widget ok" in o.get("text", "") for o in outputs), outputs
    shown = nb.cells[upto].outputs
    assert any("image/png" in o.get("data", {}) for o in shown), "the widget cell shows no PNG"
