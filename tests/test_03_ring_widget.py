"""Notebook 03's ring stepper: it renders, a control redraws it, and it agrees with the solution's ring."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

NOTEBOOK = Path(__file__).resolve().parent.parent / "solutions" / "03_allreduce" / "03_allreduce.ipynb"


@pytest.fixture(scope="module")
def ns():
    """The notebook's namespace after its cells up to the widget, plus the ring_allreduce_sim solution."""
    nb = nbformat.read(NOTEBOOK, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code" and not c.metadata.get("nbgrader", {}).get("grade")]
    namespace = {"__name__": "notebook_03"}
    for cell in code:
        exec(compile(cell.source, f"{NOTEBOOK.name}:{cell.get('id')}", "exec"), namespace)
        if "ring_stepper = " in cell.source:
            break
    sim = next(c for c in code if c.metadata.get("nbgrader", {}).get("grade_id") == "ring_allreduce_sim")
    exec(compile(sim.source, f"{NOTEBOOK.name}:ring_allreduce_sim", "exec"), namespace)
    return namespace


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
