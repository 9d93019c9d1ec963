"""Trusted grading against the red-team corpus (tests/redteam/): in-kernel tricks win nothing.

Every trick in tests/redteam/00_getting_started/ is a cell a student adds to honest work
(wrong answers, or half right). Graded through the course's pipeline (learner's cells in
the sandbox, tests in the judge kernel: grading/judge.py), each scores exactly what the
honest work scores. Graded the way nbgrader grades by default (tests in the student's
kernel; COURSE_JUDGE=off), the tricks marked ``# fools: nbgrader`` get more, which shows
the corpus attacks something real.
"""

from __future__ import annotations

import copy
import os
import re
from pathlib import Path

import nbformat
import pytest

from grading.course import SOLUTIONS
from tests.harness import CellGraph, Variant, grade_all, inject

ASSIGNMENT = "00_getting_started"
CORPUS = Path(__file__).resolve().parent / "redteam" / ASSIGNMENT
WRONG = {"tensor_nbytes": "return 0", "transfer_time": "return 0.0"}
HIDDEN_MARKERS = ("BEGIN HIDDEN TESTS", "8 PiB float64 tensor", "torch's own count")
STARTUP = Path(os.path.expanduser("~/.ipython/profile_default/startup/00-redteam-startup.py"))
# One test process grades the corpus once (module fixtures are per process).
pytestmark = pytest.mark.xdist_group("redteam")


def parse(path: Path) -> dict:
    head, cell, files, current = {}, [], {}, None
    for line in path.read_text().splitlines():
        m = re.match(r"^# (base|scores|fools):\s*(.*)$", line)
        if m and not cell and current is None:
            head[m.group(1)] = m.group(2).strip()
            continue
        f = re.match(r"^# ---- file: (\S+)$", line)
        if f:
            current = f.group(1)
            files[current] = []
            continue
        (files[current] if current else cell).append(line)
    return {"name": path.stem, "base": head["base"], "scores": float(head["scores"]),
            "fools": head.get("fools") == "nbgrader", "cell": "\n".join(cell).strip() + "\n",
            "files": {k: "\n".join(v) + "\n" for k, v in files.items()}}


TRICKS = [parse(p) for p in sorted(CORPUS.glob("*.py"))]


def honest(base: str) -> nbformat.NotebookNode:
    """Honest work, trimmed to the cells grading reads (tests/harness.py: the demos do not
    change a verdict and cost most of the run)."""
    released = nbformat.read(SOLUTIONS.parent / "notebooks" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb",
                             as_version=4)
    if base == "blank":
        return CellGraph(released).trim(released)
    nb = nbformat.read(SOLUTIONS / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    for cell, code in WRONG.items():
        if base == "half" and cell == "tensor_nbytes":
            continue
        nb = inject(nb, Variant(ASSIGNMENT, "trick", cell, [], code))
    return CellGraph(nb).trim(nb)


def with_trick(trick: dict) -> nbformat.NotebookNode:
    nb = copy.deepcopy(honest(trick["base"]))
    at = next(i for i, c in enumerate(nb.cells)
              if c.metadata.get("nbgrader", {}).get("grade_id") == "tensor_nbytes")
    nb.cells.insert(at + 1, nbformat.v4.new_code_cell(trick["cell"]))
    return nb


def students() -> tuple[dict, dict]:
    notebooks = {f"trick-{t['name']}": with_trick(t) for t in TRICKS}
    notebooks.update({f"honest-{b}": honest(b) for b in ("wrong", "half")})
    files = {f"trick-{t['name']}": t["files"] for t in TRICKS if t["files"]}
    return notebooks, files


@pytest.fixture(scope="module")
def judged(tmp_path_factory):
    STARTUP.unlink(missing_ok=True)
    notebooks, files = students()
    # builtins_patch leaves the learner's kernel unable to answer: its test calls end at
    # the per-cell limit, which is lowered here (00's cells take a second or two)
    return grade_all(ASSIGNMENT, tmp_path_factory.mktemp("judged"), extra=notebooks,
                     files=files, variants=False, env={"COURSE_CELL_TIMEOUT": "45"})


@pytest.fixture(scope="module")
def in_kernel(tmp_path_factory):
    notebooks, files = students()
    keep = {f"trick-{t['name']}" for t in TRICKS if t["fools"]} | {"trick-leak_probe"}
    notebooks = {k: v for k, v in notebooks.items() if k.startswith("honest") or k in keep}
    try:
        return grade_all(ASSIGNMENT, tmp_path_factory.mktemp("in-kernel"), extra=notebooks,
                         files=files, env={"COURSE_JUDGE": "off"},
                         variants=False)
    finally:
        STARTUP.unlink(missing_ok=True)


def test_honest_work_scores_as_before(judged):
    assert judged.total("solution") == (4, 4), judged.log[-3000:]
    assert judged.total("blank")[0] == 0
    assert judged.total("honest-wrong")[0] == 0
    assert judged.total("honest-half")[0] == 2


@pytest.mark.parametrize("trick", TRICKS, ids=[t["name"] for t in TRICKS])
def test_trick_scores_what_the_honest_work_scores(judged, trick):
    got = judged.total(f"trick-{trick['name']}")[0]
    assert got == trick["scores"], (f"{trick['name']}: scored {got}, honest work scores "
                                    f"{trick['scores']}")


def test_corpus_fools_in_kernel_grading(in_kernel):
    fooled = [t["name"] for t in TRICKS if t["fools"]]
    assert len(fooled) >= 8
    for name in fooled:
        t = next(t for t in TRICKS if t["name"] == name)
        got = in_kernel.total(f"trick-{name}")[0]
        assert got > t["scores"], f"{name} was meant to fool in-kernel grading, scored {got}"


def _learner_outputs(nb: nbformat.NotebookNode) -> str:
    text = []
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("grade") and not meta.get("solution"):
            continue  # the judge's own outputs
        text.append(nbformat.writes(nbformat.v4.new_notebook(cells=[cell])))
    return "\n".join(text)


def test_hidden_tests_never_reach_the_learners_kernel(judged, in_kernel):
    leaked = _learner_outputs(judged.autograded("trick-leak_probe"))
    assert "tensor_nbytes" in leaked  # the probe printed what it saw...
    for marker in HIDDEN_MARKERS:      # ...and no hidden test was among it
        assert marker not in leaked
    # where tests run in the student's kernel, the same probe carries them out
    carried = _learner_outputs(in_kernel.autograded("trick-leak_probe"))
    assert all(m in carried for m in HIDDEN_MARKERS)


def test_a_startup_file_written_from_a_cell_lands_nowhere(judged):
    assert not STARTUP.exists()


def test_judge_outputs_say_what_failed(judged):
    nb = judged.autograded("trick-lying_objects")
    cell = next(c for c in nb.cells
                if c.metadata.get("nbgrader", {}).get("grade_id") == "test_tensor_nbytes")
    errors = [o for o in cell.outputs if o.output_type == "error"]
    assert errors and errors[0].ename == "AssertionError"
    assert "learner's object of type Anything" in errors[0].evalue
