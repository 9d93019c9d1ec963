"""The 05_mixed_precision widget: it renders and redraws when a control moves."""

from __future__ import annotations

import pytest

from tests.harness import notebook_namespace

NEEDED = ("import labkit", "def unscale_grads_", "class DynamicLossScaler",
          "def gradscaler_scales", "scale_explorer = interactive_figure")


@pytest.fixture(scope="module")
def namespace():
    return notebook_namespace("05_mixed_precision", containing=NEEDED)


def test_scale_explorer_redraws_when_a_control_moves(namespace):
    w = namespace["scale_explorer"]
    first = w.image.value
    assert first[:4] == b"\x89PNG", "the widget shows a PNG"
    w.controls["growth_interval"].value = 10
    second = w.image.value
    assert second != first, "moving growth_interval redraws the figure"
    w.controls["pattern"].value = "every 100 steps"
    assert w.image.value != second, "choosing another overflow pattern redraws the figure"
    assert "image/png" in w._repr_mimebundle_(), "a static copy for viewers without widgets"


def test_learner_scaler_matches_gradscaler_in_the_widget_patterns(namespace):
    flags = namespace["PATTERNS"]["every 100 steps"]
    kwargs = dict(growth_interval=10, backoff_factor=0.25)
    assert namespace["learner_scales"](flags, **kwargs) == namespace["gradscaler_scales"](flags, **kwargs)


def test_scaler_rejects_bad_arguments_with_a_fix(namespace):
    scaler_cls = namespace["DynamicLossScaler"]
    with pytest.raises(ValueError, match="growth_factor must be > 1"):
        scaler_cls(growth_factor=0.5)
    with pytest.raises(ValueError, match="growth_interval must be a positive int"):
        scaler_cls(growth_interval=0)


def _throughput_benchmark():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "benchmarks" / "05_precision_throughput.py"
    spec = importlib.util.spec_from_file_location("precision_throughput", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("before", [True, False])
def test_throughput_benchmark_leaves_allow_tf32_as_it_found_it(before):
    import torch

    bench = _throughput_benchmark()
    saved = torch.backends.cuda.matmul.allow_tf32
    try:
        torch.backends.cuda.matmul.allow_tf32 = before
        gflops = bench.block_gflops(torch.float32, torch.device("cpu"), 8, 8, 1, tf32=not before)
        assert gflops > 0, f"expected a positive GFLOP/s figure, got {gflops}"
        assert torch.backends.cuda.matmul.allow_tf32 is before, (
            f"allow_tf32 was {before} before the benchmark and "
            f"{torch.backends.cuda.matmul.allow_tf32} after it")
    finally:
        torch.backends.cuda.matmul.allow_tf32 = saved


def test_learner_scaler_stops_where_gradscaler_stops_at_fp32_max(namespace):
    flags = [False] * 6 + [True] + [False] * 3
    kwargs = dict(init_scale=2.0**125, growth_interval=1)
    mine = namespace["learner_scales"](flags, **kwargs)
    ref = namespace["gradscaler_scales"](flags, **kwargs)
    assert mine == ref, f"GradScaler's scales {ref}, the solution's {mine}"
    assert max(ref) == 2.0**127, f"expected GradScaler to stop at 2^127, got max {max(ref)}"
