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
