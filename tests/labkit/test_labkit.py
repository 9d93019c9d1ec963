"""Unit tests of labkit's small modules (workers have their own file)."""

from __future__ import annotations

import subprocess
import sys

import ipywidgets as widgets
import numpy as np
import pytest
import torch

import labkit
from labkit import checks, data, devices, plots, timing
from labkit import widgets as lw


def test_import_is_light():
    code = ("import sys, labkit; labkit.grading_mode(); "
            "print(sorted(m for m in ('torch', 'mxnet', 'ipywidgets', 'matplotlib') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", f"import labkit loaded {out.stdout.strip()}"


def test_an_exercise_not_done_says_so_in_one_line(capsys):
    """In a notebook, an exercise's stub (raise NotImplementedError()) shows one line, still an
    error; a library's NotImplementedError with a reason keeps its whole traceback."""
    from IPython.core.interactiveshell import InteractiveShell

    from labkit.validation import NOT_DONE, not_done_in_one_line

    shell = InteractiveShell.instance()
    try:
        not_done_in_one_line(shell)
        stub = shell.run_cell("def f():\n    raise NotImplementedError()\nf()")
        out = capsys.readouterr().out.strip()
        assert isinstance(stub.error_in_exec, NotImplementedError)
        assert out == f"NotImplementedError: {NOT_DONE}", out
        shell.run_cell("def g():\n    raise NotImplementedError('no meta kernel')\ng()")
        out = capsys.readouterr().out
        assert "Traceback" in out and "no meta kernel" in out and NOT_DONE not in out, out
    finally:
        InteractiveShell.clear_instance()


def test_a_test_cell_that_passes_says_so_in_one_line(capsys):
    """A cell that opens with its contract's docstring (every visible test cell, and only
    those) ends with one line saying it passed; failing, not done yet, or any other cell:
    nothing more."""
    from IPython.core.interactiveshell import InteractiveShell

    from labkit.validation import not_done_in_one_line, passed_in_one_line

    shell = InteractiveShell.instance()
    try:
        not_done_in_one_line(shell)
        passed_in_one_line(shell)
        passed_in_one_line(shell)           # registered once, however often labkit is imported
        doc = '"""f: returns twice its input. More words here.\nAnd a second line."""\n'
        shell.run_cell("def f(x):\n    return 2 * x\n")
        shell.run_cell(doc + "assert f(2) == 4\n")
        assert capsys.readouterr().out == "\u2713 passed: f: returns twice its input.\n"
        shell.run_cell(doc + "assert f(2) == 5, 'f(2) should be 5'\n")
        assert "passed" not in capsys.readouterr().out
        shell.run_cell("def f(x):\n    raise NotImplementedError()\n")
        shell.run_cell(doc + "f(1)\n")
        assert "passed" not in capsys.readouterr().out
        shell.run_cell("y = 1  # not a test cell\n")
        assert capsys.readouterr().out == ""
    finally:
        InteractiveShell.clear_instance()


def test_unknown_submodule_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        labkit.nope  # noqa: B018


@pytest.mark.parametrize("value,expected", [(None, False), ("", False), ("autograde", True),
                                            ("validate", True)])
def test_grading_mode_follows_nbgrader_variable(monkeypatch, value, expected):
    if value is None:
        monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    else:
        monkeypatch.setenv("NBGRADER_EXECUTION", value)
    assert labkit.grading_mode() is expected


def test_torch_devices_fall_back_to_cpu():
    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    assert devices.try_gpu(0) == torch.device("cpu")
    assert devices.all_devices("torch", 3) == [torch.device("cpu")] * 3
    assert devices.num_gpus("torch") == 0


def test_mxnet_contexts_are_distinct_cpus():
    if not devices.has_mxnet():
        pytest.skip(devices.mxnet_status()[1])
    import mxnet as mx

    ctxs = devices.all_devices("mxnet", 3)
    assert ctxs == [mx.cpu(0), mx.cpu(1), mx.cpu(2)]
    assert devices.try_gpu(0, "mxnet") == mx.cpu()


@pytest.mark.parametrize("bad", ["tensorflow", "", None])
def test_bad_framework_is_named(bad):
    with pytest.raises(ValueError, match="framework must be 'torch' or 'mxnet'"):
        devices.all_devices(bad)


@pytest.mark.parametrize("bad", [0, -2, 1.5])
def test_bad_num_devices_is_named(bad):
    with pytest.raises(ValueError, match="num_devices must be a positive int"):
        devices.all_devices("torch", bad)


def test_environment_report_and_verdict(capsys):
    info = devices.environment_report()
    assert info["cpu_cores"] >= 1 and info["torch"] == torch.__version__
    devices.print_report()
    out = capsys.readouterr().out
    assert "PyTorch" in out and "MXNet" in out
    last = out.strip().splitlines()[-1]
    assert last.startswith("Ready"), last
    broken = dict(info, mxnet=None, mxnet_problem="no mxnet", python_ok=False, python="3.10.13")
    assert "MXNet missing" in devices.verdict(broken) and "3.11 to 3.13" in devices.verdict(broken)
    assert info["python_ok"] == ((3, 11) <= sys.version_info[:2] <= (3, 13))


def test_timer_syncs_before_and_after():
    calls = []
    with timing.Timer(lambda: calls.append("sync")) as t:
        calls.append("work")
    assert calls == ["sync", "work", "sync"]
    assert t.seconds is not None and t.seconds >= 0


def test_timer_rejects_non_callable_sync():
    with pytest.raises(TypeError, match="sync must be a callable"):
        timing.Timer("cuda")


def test_sync_for_mxnet_waits_for_the_engine():
    if not devices.has_mxnet():
        pytest.skip(devices.mxnet_status()[1])
    import mxnet as mx

    assert timing.sync_for("mxnet") is mx.nd.waitall
    assert timing.sync_for(mx.cpu(1)) is mx.nd.waitall
    assert timing.sync_for("cpu")() is None
    assert timing.sync_for(None)() is None


def test_digits_split_is_fixed_and_shaped():
    Xtr, ytr, Xte, yte = data.digits()
    assert Xtr.shape[1:] == (1, 8, 8) and Xtr.dtype == torch.float32 and ytr.dtype == torch.int64
    assert len(Xtr) + len(Xte) == 1797 and len(Xte) == round(1797 * 0.2)
    assert 0.0 <= float(Xtr.min()) and float(Xtr.max()) <= 1.0
    again = data.digits()
    assert torch.equal(again[0], Xtr) and torch.equal(again[3], yte)
    flat = data.digits("numpy", flatten=True)
    assert flat[0].shape[1] == 64 and isinstance(flat[0], np.ndarray)


def test_digits_are_scikit_learns_load_digits():
    import numpy as np
    from sklearn.datasets import load_digits

    X, y = data._digits_numpy()
    bunch = load_digits()
    assert np.array_equal(X, (bunch.images / 16.0).astype(np.float32))
    assert np.array_equal(y, bunch.target.astype(np.int64))


def test_digits_bad_arguments():
    with pytest.raises(ValueError, match="framework"):
        data.digits("jax")
    with pytest.raises(ValueError, match="test_fraction"):
        data.digits(test_fraction=1.5)


def test_batches_cover_every_sample_once():
    X, y = torch.arange(10).float(), torch.arange(10)
    got = list(data.batches(X, y, 4, shuffle=True, seed=1))
    assert [len(b[0]) for b in got] == [4, 4, 2]
    assert sorted(torch.cat([b[1] for b in got]).tolist()) == list(range(10))
    with pytest.raises(ValueError, match="batch_size"):
        list(data.batches(X, y, 0))
    with pytest.raises(ValueError, match="must match"):
        list(data.batches(X, y[:5], 2))


def test_batches_of_mxnet_arrays():
    if not devices.has_mxnet():
        pytest.skip(devices.mxnet_status()[1])
    Xtr, ytr, _, _ = data.digits("mxnet")
    xb, yb = next(data.batches(Xtr, ytr, 32))
    assert xb.shape == (32, 1, 8, 8) and yb.shape == (32,)


def test_compare_verdicts(capsys):
    a = torch.tensor([1.0, 2.0, float("nan")])
    assert checks.compare(a, a.clone(), name="same") == "exact"
    assert checks.compare(a, a + 1e-7) == "close"
    assert checks.compare(a, a + 1) == "different"
    assert checks.compare(a, torch.zeros(2)) == "different"
    assert checks.compare(torch.tensor([1.0, 2.0]), torch.tensor([1.0, float("nan")])) == "different"
    out = capsys.readouterr().out
    assert "same: exact (max abs difference 0)" in out and "shape (3,) vs expected (2,)" in out


def test_check_helpers_teach():
    with pytest.raises(AssertionError, match=r"sum: expected 3, got 4"):
        checks.check_equal(4, 3, "sum")
    with pytest.raises(AssertionError, match=r"grad: expected array of shape \(2,\).*max abs"):
        checks.check_close(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 3.0]), "grad")
    checks.check_close(torch.tensor([1.0]), np.array([1.0 + 1e-9]), "ok")
    checks.check_equal(torch.tensor([1, 2]), [1, 2], "lists compare to tensors")
    checks.check_close(torch.tensor([1.0], dtype=torch.bfloat16), [1.0], "bf16 is compared as float")


def test_checks_accept_mxnet_arrays(capsys):
    if not devices.has_mxnet():
        pytest.skip(devices.mxnet_status()[1])
    import mxnet as mx

    a = mx.nd.array([1.0, 2.0], ctx=mx.cpu(1))
    assert checks.compare(a, torch.tensor([1.0, 2.0])) == "exact"
    checks.check_equal(a, [1.0, 2.0], "mxnet vs list")
    with pytest.raises(AssertionError, match="expected"):
        checks.check_close(a, np.array([1.0, 5.0]), "mxnet")


def test_interactive_figure_redraws_and_has_a_static_copy():
    def draw(fig, n, log):
        ax = fig.add_subplot()
        ax.plot(range(n))
        if log:
            ax.set_yscale("log")

    w = lw.interactive_figure(draw, n=widgets.IntSlider(3, 1, 10), log=widgets.Checkbox(False))
    first = bytes(w.image.value)
    assert first.startswith(b"\x89PNG")
    w.controls["n"].value = 9
    assert bytes(w.image.value) != first
    bundle = w._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle and "image/png" in bundle
    assert w.values == {"n": 9, "log": False}


def test_interactive_html_rerenders():
    w = lw.interactive_html(lambda x: f"<b>{x}</b>", x=widgets.IntSlider(1, 0, 5))
    w.controls["x"].value = 4
    assert w.html.value == "<b>4</b>" and w._repr_mimebundle_()["text/html"] == "<b>4</b>"


def test_widget_controls_are_checked():
    with pytest.raises(ValueError, match="at least one control"):
        lw.interactive_figure(lambda fig: None)
    with pytest.raises(TypeError, match="control 'n' must be an ipywidgets value widget"):
        lw.interactive_html(lambda n: "", n=3)


def test_timeline_and_loglog_plots():
    from matplotlib.figure import Figure

    fig = Figure()
    ax = fig.add_subplot(1, 2, 1)
    plots.timeline(ax, ["front end", "engine"], [(0, 0.0, 1.0, "C0"), (1, 0.5, 2.0, "C1")])
    assert len(ax.patches) == 2 and [t.get_text() for t in ax.get_yticklabels()] == ["front end", "engine"]
    ax2 = fig.add_subplot(1, 2, 2)
    plots.loglog(ax2, [1, 10], {"a": [1, 2]}, "x", "y")
    assert ax2.get_xscale() == "log" and ax2.get_legend() is not None


def test_timeline_row_names_fit_in_the_figure():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from labkit.plots import timeline

    fig, ax = plt.subplots(figsize=(6, 2))
    timeline(ax, ["front end: issue", "back end: compute"], [(0, 0.0, 1.0, "C0"), (1, 0.5, 2.0, "C1")])
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    for label in ax.get_yticklabels():
        box = label.get_window_extent(renderer)
        assert box.x0 >= 0, f"row name {label.get_text()!r} starts {box.x0:.0f} px left of the figure"
    plt.close(fig)


def test_without_torch_distributed_worker_cells_say_what_skips(monkeypatch, capsys):
    """Where torch.distributed.is_available() is False (some macOS builds), the report says so
    and labkit.workers.run stops its cell with one line (IPython shows no traceback)."""
    import torch.distributed as dist

    from labkit import workers

    assert workers.distributed_status()[0] and "gloo" in workers.distributed_status()[1]
    monkeypatch.setattr(dist, "is_available", lambda: False)
    ok, line = workers.distributed_status()
    assert not ok and "\n" not in line and "worker processes" in line and "skip" in line
    with pytest.raises(workers.DistributedUnavailable) as err:
        workers.run(lambda rank, world_size: rank, 2)
    assert err.value._render_traceback_() == [line]
    devices.print_report()
    out = capsys.readouterr().out
    assert f"torch.distributed  {line}" in out and "torch.distributed missing" in out.splitlines()[-1]
