"""The float explorer of notebook 04 renders, and moving its controls changes what it shows.

Runs only the notebook cells the widget needs (set-up, the float64 reference rounding, the
explorer) from solutions/04_number_formats, in-process; no kernel, no learner function.
"""

from __future__ import annotations

import math

import matplotlib
import pytest

from tests.harness import notebook_namespace

matplotlib.use("Agg")


@pytest.fixture(scope="module")
def ns():
    """The namespace after running the set-up, quantize and explorer cells."""
    return notebook_namespace("04_number_formats", containing=("import labkit", "def quantize",
                                                               "interactive_html("))


def test_quantize_matches_torch_on_edge_values(ns):
    import torch

    quantize = ns["quantize"]
    for dtype, layout in [(torch.bfloat16, (8, 7)), (torch.float16, (5, 10))]:
        for v in [1 + 2**-8, 1 + 3 * 2**-8, 65519.0, 65520.0, 70000.0, 1e-8, -1e-45, 3.0e38, -0.0]:
            expected = torch.tensor(v, dtype=torch.float32).to(dtype).item()
            got = quantize(float(torch.tensor(v, dtype=torch.float32)), *layout)
            assert got == expected and math.copysign(1, got) == math.copysign(1, expected), (v, dtype)


def test_explorer_renders_and_updates(ns):
    w = ns["explorer"]
    first = w.html.value
    assert "fp16" in first and "bf16" in first and "<table>" in first
    assert w._repr_mimebundle_().get("text/html") == first, "static copy for viewers without widgets"

    w.controls["value"].value = "70000"
    html = w.html.value
    assert html != first
    fp16_row = next(r for r in html.split("<tr>") if r.startswith("<td>fp16"))
    assert "inf" in fp16_row and "overflow" in fp16_row
    bf16_row = next(r for r in html.split("<tr>") if r.startswith("<td>bf16"))
    assert "70144.0" in bf16_row

    w.controls["scale"].value = -41
    assert "subnormal" in next(r for r in w.html.value.split("<tr>") if r.startswith("<td>fp16"))
    w.controls["scale"].value = -50
    assert "underflow" in next(r for r in w.html.value.split("<tr>") if r.startswith("<td>fp16"))

    w.controls["formats"].value = ("fp32",)
    assert w.html.value.count("<tr><td>") == 1

    w.controls["value"].value = "not a number"
    assert "Cannot read" in w.html.value


def test_encode_gives_the_fields(ns):
    encode = ns["encode"]
    assert encode(1.0, 8, 23) == (0, 127, 0)
    assert encode(-2.5, 8, 23) == (1, 128, 0x200000)
    assert encode(2.0**-149, 8, 23) == (0, 0, 1)
    assert encode(float("inf"), 5, 10) == (0, 31, 0)
    assert encode(-0.0, 8, 7) == (1, 0, 0)
