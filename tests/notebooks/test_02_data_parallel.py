"""02_data_parallel: runs where MXNet cannot be imported; labkit counts the cores it may use."""

from __future__ import annotations

import os

import nbformat
import pytest
from nbclient import NotebookClient
from grading.trusted.preprocessors import IOPUB_TIMEOUT

from grading.course import SOLUTIONS
from grading.trusted.kernels import IpcKernelManager
from labkit import devices
from tests.harness import error_names

NOTEBOOK = SOLUTIONS / "02_data_parallel" / "02_data_parallel.ipynb"
SKIP_LINE = "MXNet is not available here"

CHECK = """
assert not HAS_MXNET, "the mxnet shim should make MXNet unimportable"
assert history["test accuracy"], "the PyTorch training cell recorded no epochs"
assert not mx_history["loss"] and not gluon_history["loss"], "MXNet cells ran without MXNet"
print(f"pytorch ok: {len(history['test accuracy'])} epochs, accuracy {history['test accuracy'][-1]:.3f}")
"""


def _text(cell) -> str:
    return "".join(o.get("text", "") for o in cell.get("outputs", []) if o.get("output_type") == "stream")


@pytest.mark.slow
def test_runs_without_mxnet(tmp_path, no_mxnet):
    """Set-up says why MXNet is missing, MXNet cells skip in one line, PyTorch cells and tests run."""
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(CHECK))
    NotebookClient(nb, iopub_timeout=IOPUB_TIMEOUT, timeout=300, kernel_name="python3", kernel_manager_class=IpcKernelManager, allow_errors=True,
                   resources={"metadata": {"path": str(tmp_path)}}).execute()

    errors = error_names(nb)
    assert not errors, f"errors without MXNet (cell, error, message): {errors}"
    code = [(i, c) for i, c in enumerate(nb.cells) if c.cell_type == "code" and c.source.strip()]
    unexecuted = [i for i, c in code if c.get("execution_count") is None]
    assert not unexecuted, f"cells {unexecuted} never ran"

    setup = next(c for _, c in code if "import labkit" in c.source)
    assert f"{SKIP_LINE} (ImportError: mxnet made unimportable" in _text(setup), _text(setup)
    skipping = [(i, c) for i, c in code if f'print("{SKIP_LINE}' in c.source]
    assert len(skipping) >= 4, f"expected the MXNet cells to carry a skip line, found {len(skipping)}"
    for i, cell in skipping:
        # a test cell that passes adds its own verdict line (labkit.validation.passed_in_one_line)
        lines = [line for line in _text(cell).strip().splitlines() if not line.startswith("\u2713 passed: ")]
        assert len(lines) == 1 and lines[0].startswith(SKIP_LINE), (
            f"cell {i} should skip in one line without MXNet, printed: {lines}")
    graded = {c.metadata["nbgrader"]["grade_id"] for _, c in code
              if c.metadata.get("nbgrader", {}).get("grade")}
    assert {"test_split_batch", "test_allreduce", "test_train_batch"} <= graded
    assert "pytorch ok" in _text(nb.cells[-1]), _text(nb.cells[-1])


def test_usable_cores_follows_the_affinity_mask(monkeypatch):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {3}, raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 64)
    assert devices.usable_cores() == 1
    assert devices.environment_report()["cpu_cores"] == 1


def test_usable_cores_without_sched_getaffinity(monkeypatch):
    monkeypatch.delattr(os, "sched_getaffinity", raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 6)
    assert devices.usable_cores() == 6


def test_epoch_worker_runs_on_two_gloo_processes(monkeypatch):
    """The sweep's worker (grading mode skips the sweep) runs in 2 processes and times both parts."""
    from labkit import workers
    from tests.harness import notebook_namespace

    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")  # the sweep cell defines, does not run
    ns = notebook_namespace("02_data_parallel", containing=(
        "import labkit", "def init_params", "def lenet", "def epoch_worker"))
    X, y = ns["X_train"][:70], ns["y_train"][:70]
    per_rank = workers.run(ns["epoch_worker"], 2, X, y, ns["init_params"](), 32, 0.2, 1,
                           backend="gloo", threads=1, timeout=120)
    assert len(per_rank) == 2
    for timings in per_rank:
        assert set(timings) == {"total", "compute", "allreduce"}, timings
        assert timings["total"] > 0 and timings["compute"] > 0 and timings["allreduce"] > 0, timings
        assert timings["compute"] + timings["allreduce"] <= timings["total"] * 1.01, timings


def test_no_test_code_ships_into_the_sandbox():
    """Issue 21: 02's test cells (hidden ones included) only call the learner's functions; no
    step decorated with in_learner_kernel runs test code where the learner's code runs."""
    nb = nbformat.read(NOTEBOOK, as_version=4)
    tests = [c for c in nb.cells if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("grade")]
    assert len(tests) == 4
    for cell in tests:
        assert "in_learner_kernel" not in cell.source, cell.metadata["nbgrader"]["grade_id"]


_STEP_ELSEWHERE = """
import pickle, sys
import torch
fn, args, threads = pickle.load(sys.stdin.buffer)
torch.set_num_threads(threads)
pickle.dump(fn(*args), sys.stdout.buffer)
"""


def _in_another_process(fn, *args, threads):
    import subprocess
    import sys

    import cloudpickle

    out = subprocess.run([sys.executable, "-c", _STEP_ELSEWHERE], input=cloudpickle.dumps((fn, args, threads)),
                         capture_output=True, timeout=300, check=True)
    import pickle
    return pickle.loads(out.stdout)


def test_data_parallel_bits_hold_across_processes_and_thread_counts():
    """test_train_batch's data-parallel check compares float64 parameters to the bit with a
    reference the judge computes while the answer runs in the learner's kernel, with the judge
    set to that kernel's thread count. The premise: the solution's step run in another process
    with the same thread count gives exactly the reference's bits (per-shard gradients summed in
    replica order, lr * sum / len(X) subtracted), for 1 and 2 threads; the whole batch on one
    replica, the same step to rounding, does not."""
    import torch

    from tests.harness import notebook_namespace

    ns = notebook_namespace("02_data_parallel", containing=("import labkit", "def init_params", "def lenet"),
                            grade_ids=("split_batch", "allreduce_", "train_batch"))
    X, y = ns["X_train"][:16].double(), ns["y_train"][:16]
    start = [p.double() for p in ns["init_params"](seed=1)]
    k, lr, loss_fn, replicate, train_batch = 3, 0.5, ns["loss_fn"], ns["replicate"], ns["train_batch"]

    def step(start, X, y):
        reps = replicate(start, ["cpu"] * k)
        train_batch(X, y, reps, lr)
        return [[p.detach() for p in params] for params in reps]

    mine = torch.get_num_threads()
    try:
        for threads in (1, 2):
            torch.set_num_threads(threads)
            total = None
            for a, b in ((0, 6), (6, 11), (11, 16)):
                ps = [p.clone().requires_grad_(True) for p in start]
                loss_fn(ps, X[a:b], y[a:b]).backward()
                total = [p.grad for p in ps] if total is None else [t + p.grad for t, p in zip(total, ps)]
            want = [p - lr * g / len(X) for p, g in zip(start, total)]
            got = _in_another_process(step, start, X, y, threads=threads)
            for r, params in enumerate(got):
                for j, (p, e) in enumerate(zip(params, want)):
                    assert torch.equal(p, e), (threads, r, j, (p - e).abs().max().item())
            ps = [p.clone().requires_grad_(True) for p in start]
            loss_fn(ps, X, y).backward()
            whole = [p - lr * p.grad / len(X) for p in ps]
            assert not all(torch.equal(w, e) for w, e in zip(whole, want)), threads
    finally:
        torch.set_num_threads(mine)


def test_the_what_if_shows_both_models_where_they_coincide():
    """The what-if's two models agree wherever n <= CORES; drawn alike, one hid the other
    (on this 2-core machine at n = 1 and 2), so both look different and the legend says so."""
    import numpy as np
    from matplotlib.figure import Figure

    from tests.harness import notebook_namespace

    import nbformat

    from grading.course import SOLUTIONS

    ns = notebook_namespace("02_data_parallel", containing=("import labkit",))
    ns.update(scaling={n: {"compute": 0.1 / n, "allreduce": 0.01 * n, "total": 0.1}
                       for n in (1, 2, 4)}, world_sizes=[1, 2, 4], CORES=2, display=print)
    nb = nbformat.read(SOLUTIONS / "02_data_parallel" / "02_data_parallel.ipynb", as_version=4)
    exec(next(c.source for c in nb.cells if "def draw_whatif" in c.source), ns)
    fig = Figure()
    ns["draw_whatif"](fig, 1.0)
    separate, shared = fig.axes[0].lines[:2]
    assert np.allclose(separate.get_ydata()[:2], shared.get_ydata()[:2])
    assert (separate.get_linewidth(), separate.get_linestyle()) != \
        (shared.get_linewidth(), shared.get_linestyle()), "one model line hides the other"
    assert "the same for n = 1, 2" in shared.get_label()
