"""01_async_execution: the timeline widget redraws; a half-built engine fails fast instead of hanging."""

from __future__ import annotations

import time

import nbformat
import pytest
from nbclient import NotebookClient
from grading.trusted.preprocessors import IOPUB_TIMEOUT

from grading.course import SOLUTIONS
from grading.trusted.kernels import IpcKernelManager

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
    NotebookClient(nb, iopub_timeout=IOPUB_TIMEOUT, timeout=120, kernel_name="python3", kernel_manager_class=IpcKernelManager,
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = nb.cells[-1].outputs
    assert any("widget ok" in o.get("text", "") for o in outputs), outputs
    shown = nb.cells[upto].outputs
    assert any("image/png" in o.get("data", {}) for o in shown), "the widget cell shows no PNG"


@pytest.mark.slow
@pytest.mark.parametrize("region", [2, 3])
def test_engine_half_built_fails_fast_with_not_implemented(tmp_path, monkeypatch, region):
    """A learner who has written push but not _finish (or wait_for) sees NotImplementedError, never a hang.

    A hang cannot pass unseen, and no clock decides it: a test's wait that does not return fails with
    call_within's AssertionError (not NotImplementedError), and any other cell that hangs ends the run
    with nbclient's cell timeout, which raises out of execute()."""
    pytest.importorskip("mxnet")
    from tests.harness import Variant, error_names, inject

    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nb = inject(nb, Variant("01_async_execution", f"stub{region}", "engine", [],
                            "raise NotImplementedError()", region))
    NotebookClient(nb, iopub_timeout=IOPUB_TIMEOUT, timeout=300, kernel_name="python3", kernel_manager_class=IpcKernelManager, allow_errors=True,
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    errors = error_names(nb)
    engine_tests = {"test_engine_async", "test_engine_order", "test_engine_errors"}
    failed = {nb.cells[i].metadata.get("nbgrader", {}).get("grade_id") for i, _, _ in errors}
    assert all(name == "NotImplementedError" for _, name, _ in errors), errors
    assert engine_tests <= failed, f"every engine test should fail, failed: {failed}"


def test_the_last_cell_says_which_exercise_to_finish_before_it_measures(capsys):
    """01's last cell prints predict_chain's predictions beside measurements. With Exercise 4
    not done it says so at once and measures nothing (it used to fit and time for about 80 s
    first, then say so)."""
    import os
    import shutil

    import torch

    from grading.course import NOTEBOOKS

    nb = nbformat.read(NOTEBOOKS / "01_async_execution" / "01_async_execution.ipynb", as_version=4)
    cell = [c for c in nb.cells if c.cell_type == "code"][-1]

    def predict_chain(k, n, fused, overhead_s, seconds_per_element):
        raise NotImplementedError()

    space = {"torch": torch, "os": os, "shutil": shutil, "GRADING": False, "predict_chain": predict_chain}
    start = time.perf_counter()
    exec(compile(cell.source, "last cell", "exec"), space)
    took, out = time.perf_counter() - start, capsys.readouterr().out
    assert "Finish Exercise 4 (predict_chain) first" in out and "fitted here" not in out, out
    assert "overhead_s" not in space, f"measured before saying so ({took:.1f} s)"
