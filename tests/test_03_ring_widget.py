"""Notebook 03's ring stepper: it renders, a control redraws it, and it agrees with the solution's ring."""

from __future__ import annotations

import pytest

from tests.harness import notebook_namespace


@pytest.fixture(scope="module")
def ns():
    """The notebook's namespace after its cells up to the widget, plus the ring_allreduce_sim solution."""
    return notebook_namespace("03_allreduce", until="ring_stepper = ", grade_ids=("ring_allreduce_sim",))


def test_stepper_renders_and_redraws(ns):
    w = ns["ring_stepper"]
    first = w.image.value
    assert first[:8] == b"\x89PNG\r\n\x1a\n", "the stepper should show a PNG figure"
    w.controls["step"].value = 0
    assert w.image.value != first, "moving the step slider should redraw the figure"
    w.controls["n"].value = 6
    assert w.controls["step"].max == 10, "with N=6 the slider should reach 2(N-1) = 10 steps"
    w.controls["step"].value = 10
    w.controls["schedule"].value = "yours"
    assert w.image.value[:8] == b"\x89PNG\r\n\x1a\n"
    bundle = w._repr_mimebundle_()
    assert "image/png" in bundle, "the widget should carry a static PNG for viewers without widgets"


@pytest.mark.parametrize("n", [2, 3, 5])
def test_reference_schedule_matches_the_solution(ns, n):
    import torch

    reference = ns["ring_schedule"](n)
    _, trace = ns["ring_allreduce_sim"]([torch.zeros(7) for _ in range(n)])
    assert [tuple(t) for t in trace] == reference
    final = ns["contributions"](n, reference, 2 * (n - 1))
    assert all(len(held) == n for row in final for held in row), "after 2(N-1) steps every chunk is complete"
    half = ns["contributions"](n, reference, n - 1)
    for w in range(n):
        assert len(half[w][(w + 1) % n]) == n, f"after reduce-scatter worker {w} owns chunk {(w + 1) % n}"
