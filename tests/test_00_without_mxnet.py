"""00_getting_started where MXNet cannot be imported: the set-up cell says why, the MXNet
demo skips in one line, and every PyTorch cell and test still runs without an error."""

from __future__ import annotations

import nbformat
import pytest
from nbclient import NotebookClient

from grading.course import NOTEBOOKS, SOLUTIONS
from tests.harness import error_names

A = "00_getting_started"


@pytest.mark.slow
@pytest.mark.parametrize("folder", [SOLUTIONS, NOTEBOOKS], ids=["solution", "learner"])
def test_runs_without_mxnet(no_mxnet, tmp_path, folder):
    nb = nbformat.read(folder / A / f"{A}.ipynb", as_version=4)
    NotebookClient(nb, timeout=180, kernel_name="python3", allow_errors=True,
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    code = [c for c in nb.cells if c.cell_type == "code" and c.source.strip()]
    assert all(c.get("execution_count") is not None for c in code), "some cells never ran"
    allowed = {"NotImplementedError"} if folder == NOTEBOOKS else set()
    errors = [e for e in error_names(nb) if e[1] not in allowed]
    assert not errors, f"errors without MXNet (cell, error, message): {errors}"
    text = ["".join(o.get("text", "") for o in c.outputs if o.get("output_type") == "stream")
            for c in code]
    from labkit.devices import mxnet_status

    mx_cells = [t for c, t in zip(code, text) if "import mxnet" in c.source]
    assert mx_cells, "the notebook has MXNet cells to skip"
    for printed in mx_cells:  # one line on MXNet (why it is missing), then the PyTorch part
        mx_lines = [ln for ln in printed.splitlines() if "MXNet" in ln or "mxnet" in ln]
        assert len(mx_lines) == 1 and "mxnet made unimportable" in mx_lines[0], printed
        assert "PyTorch devices:" in printed, printed
    assert mxnet_status()[0], "MXNet itself imports in the test process (the shim is the kernel's)"
