"""01_async_execution where MXNet cannot be imported (most GPU machines today): the set-up
cell runs, every MXNet cell skips in one line, the PyTorch cells still run, and nothing
fails with a NameError; only the MXNet exercise's test fails, saying why."""

from __future__ import annotations

import subprocess
import sys

import nbformat
import pytest
from nbclient import NotebookClient

from grading.course import SOLUTIONS
from tests.harness import error_names

NOTEBOOK = SOLUTIONS / "01_async_execution" / "01_async_execution.ipynb"
# no_mxnet (tests/conftest.py): an 'mxnet' on PYTHONPATH whose import raises ImportError


def test_shim_hides_mxnet(no_mxnet):
    proc = subprocess.run([sys.executable, "-c", "import mxnet"], capture_output=True, text=True)
    assert proc.returncode != 0 and "ImportError" in proc.stderr, proc.stderr[-500:]


@pytest.mark.slow
def test_solution_runs_without_mxnet(no_mxnet, tmp_path):
    nb = nbformat.read(NOTEBOOK, as_version=4)
    NotebookClient(nb, timeout=180, kernel_name="python3", allow_errors=True,
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    code = [(i, c) for i, c in enumerate(nb.cells) if c.cell_type == "code" and c.source.strip()]
    unexecuted = [i for i, c in code if c.get("execution_count") is None]
    assert not unexecuted, f"cells {unexecuted} never ran"

    errors = error_names(nb)
    grade_id = {i: c.metadata.get("nbgrader", {}).get("grade_id") for i, c in enumerate(nb.cells)}
    unexpected = [(i, grade_id[i], name, msg) for i, name, msg in errors
                  if not (grade_id[i] == "test_blocks" and name == "RuntimeError" and "MXNet" in msg)]
    assert not unexpected, ("without MXNet only test_blocks may fail (a RuntimeError saying MXNet "
                            f"is missing); found (cell, grade id, error, message): {unexpected}")
    assert [grade_id[i] for i, _, _ in errors] == ["test_blocks"], (
        f"test_blocks must fail without MXNet (its exercise measures MXNet's engine), errors: {errors}")

    setup = next(c for _, c in code if "mxnet_status" in c.source)
    printed = "".join(o.get("text", "") for o in setup.outputs)
    assert "MXNet is not available here" in printed, f"the set-up cell should say why: {printed!r}"

    for i, cell in code:
        if "if not HAVE_MXNET:" not in cell.source or cell.metadata.get("nbgrader", {}).get("grade"):
            continue
        lines = [ln for o in cell.outputs if o.get("output_type") == "stream"
                 for ln in o.get("text", "").splitlines() if "MXNet" in ln]
        assert len(lines) == 1, f"cell {i} should skip its MXNet part in one line, printed {lines}"

    text = "\n".join(o.get("text", "") for _, c in code for o in c.outputs)
    assert "PyTorch CPU (no engine)" in text, "the PyTorch row of the tiny-ops table did not run"
    assert "PyTorch convolution" in text, "the timing demo should fall back to PyTorch"
    assert "e on DependencyEngine vs NumPy in order" in text, "the engine demo should still check e"


@pytest.mark.slow
def test_learner_notebook_runs_without_mxnet(no_mxnet, tmp_path):
    """The untouched learner copy, without MXNet: it runs to the end, failing only where an
    exercise is unwritten (NotImplementedError) or needs MXNet (test_blocks, saying why)."""
    from grading.course import NOTEBOOKS

    nb = nbformat.read(NOTEBOOKS / "01_async_execution" / "01_async_execution.ipynb", as_version=4)
    NotebookClient(nb, timeout=180, kernel_name="python3", allow_errors=True,
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    code = [c for c in nb.cells if c.cell_type == "code" and c.source.strip()]
    assert all(c.get("execution_count") is not None for c in code), "some cells never ran"
    grade_id = {i: c.metadata.get("nbgrader", {}).get("grade_id") for i, c in enumerate(nb.cells)}
    others = [(i, grade_id[i], name, msg) for i, name, msg in error_names(nb)
              if name != "NotImplementedError"
              and not (grade_id[i] == "test_blocks" and name == "RuntimeError" and "MXNet" in msg)]
    assert not others, f"errors other than the stubs' and test_blocks' (cell, grade id, error, message): {others}"
