"""Notebook 03's ring stepper: it renders, a control redraws it, and it agrees with the solution's ring."""

from __future__ import annotations

import pytest

from tests.harness import notebook_namespace


def ring_schedule(n):
    """The textbook ring as a trace of (step, src, dst, chunk); kept here, out of the learner's notebook."""
    trace = [(s, r, (r + 1) % n, (r - s) % n) for s in range(n - 1) for r in range(n)]
    trace += [(n - 1 + s, r, (r + 1) % n, (r + 1 - s) % n) for s in range(n - 1) for r in range(n)]
    return trace


@pytest.fixture(scope="module")
def ns():
    """The notebook's namespace after its cells up to the widget, plus the ring_allreduce_sim solution."""
    return notebook_namespace("03_allreduce", until="ring_stepper = ", grade_ids=("ring_allreduce_sim",))


def test_reference_schedule_is_not_in_the_notebook(ns):
    assert "ring_schedule" not in ns, "the reference schedule must not be handed to the learner"


def test_stepper_renders_and_redraws(ns):
    w = ns["ring_stepper"]
    first = w.image.value
    assert first[:8] == b"\x89PNG\r\n\x1a\n", "the stepper should show a PNG figure"
    w.controls["step"].value = 0
    assert w.image.value != first, "moving the step slider should redraw the figure"
    w.controls["n"].value = 6
    assert w.controls["step"].max == 10, "with N=6 the slider should reach 2(N-1) = 10 steps"
    w.controls["step"].value = 10
    yours = w.image.value
    w.controls["schedule"].value = "naive"
    assert w.image.value[:8] == b"\x89PNG\r\n\x1a\n"
    assert w.image.value != yours, "switching the schedule should redraw the figure"
    bundle = w._repr_mimebundle_()
    assert "image/png" in bundle, "the widget should carry a static PNG for viewers without widgets"


def test_stepper_opens_on_the_naive_plan_until_the_ring_is_written(ns):
    """A blank notebook's stepper opened on "yours", whose sliders then did nothing until the
    learner found the "naive" choice."""
    import nbformat

    from grading.course import SOLUTIONS

    nb = nbformat.read(SOLUTIONS / "03_allreduce" / "03_allreduce.ipynb", as_version=4)
    cell = next(c.source for c in nb.cells if "ring_stepper = " in c.source)
    done = dict(ns)
    exec(cell, done)
    assert done["ring_stepper"].controls["schedule"].value == "yours"

    def stub(tensors):
        raise NotImplementedError()

    blank = dict(ns, ring_allreduce_sim=stub)
    exec(cell, blank)
    assert blank["ring_stepper"].controls["schedule"].value == "naive"


@pytest.mark.parametrize("n", [2, 3, 5])
def test_solution_schedule_is_the_textbook_ring(ns, n):
    import torch

    reference = ring_schedule(n)
    _, trace = ns["ring_allreduce_sim"]([torch.zeros(7) for _ in range(n)])
    assert [tuple(t) for t in trace] == reference
    final = ns["contributions"](n, reference, 2 * (n - 1))
    assert all(len(held) == n for row in final for held in row), "after 2(N-1) steps every chunk is complete"
    half = ns["contributions"](n, reference, n - 1)
    for w in range(n):
        assert len(half[w][(w + 1) % n]) == n, f"after reduce-scatter worker {w} owns chunk {(w + 1) % n}"


@pytest.mark.parametrize("n", [2, 4])
def test_naive_schedule_ends_complete_with_worker_0_busiest(ns, n):
    trace = ns["naive_trace"](n)
    final = ns["contributions"](n, trace, 2 * (n - 1))
    assert all(len(held) == n for row in final for held in row), "the naive plan also ends complete"
    sent = [sum(1 for t in trace if t[1] == w) for w in range(n)]
    assert sent[0] == (n - 1) * n and max(sent[1:]) == n, f"chunks sent per worker: {sent}"
