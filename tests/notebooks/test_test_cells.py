"""A visible test cell reads as the contract (DESIGN principle 8): at most 15 non-blank lines
in every released notebook, one line per property; its machinery lives in labkit."""

from __future__ import annotations

import nbformat

from grading.course import NOTEBOOKS, assignments

LIMIT = 15

# Visible test cells allowed to be longer than LIMIT, each with its ceiling: none. A cell that
# needs more lines moves its machinery into labkit instead.
CEILINGS: dict[tuple[str, str], int] = {}


def visible_test_cells() -> dict[tuple[str, str], int]:
    """(assignment, grade_id) -> non-blank lines, of every test cell of every released notebook."""
    lengths = {}
    for assignment in assignments():
        nb = nbformat.read(NOTEBOOKS / assignment / f"{assignment}.ipynb", as_version=4)
        for cell in nb.cells:
            meta = cell.metadata.get("nbgrader", {})
            if cell.cell_type == "code" and meta.get("grade"):
                lines = [line for line in cell.source.splitlines() if line.strip()]
                lengths[(assignment, meta["grade_id"])] = len(lines)
    return lengths


def test_every_visible_test_cell_is_at_most_15_lines():
    lengths = visible_test_cells()
    too_long = [f"{a} {gid}: {n} non-blank lines, at most {CEILINGS.get((a, gid), LIMIT)}"
                for (a, gid), n in sorted(lengths.items()) if n > CEILINGS.get((a, gid), LIMIT)]
    assert not too_long, ("visible test cells too long (their machinery belongs in labkit):\n"
                          + "\n".join(too_long))


def test_every_ceiling_names_a_cell_still_over_the_limit():
    """An entry of CEILINGS for a cell now within the limit (or gone) is removed, and a ceiling
    is lowered as its cell shrinks."""
    lengths = visible_test_cells()
    stale = [f"{a} {gid}: ceiling {ceiling}, now {lengths.get((a, gid))}"
             for (a, gid), ceiling in sorted(CEILINGS.items())
             if lengths.get((a, gid), 0) <= LIMIT or lengths[(a, gid)] < ceiling]
    assert not stale, "lower or remove these entries of CEILINGS:\n" + "\n".join(stale)
