"""A judge that stops while a test cell runs fails that cell and every later test cell, and
the next student gets a judge that works (grading/trusted/judge.py). A test cell the judge
stopped in has no error output of its own, which nbgrader counts as passed: what a student's
code returns to the tests (a thread count the judge cannot start, say) must not earn points."""

from __future__ import annotations

import shutil

import nbformat
import pytest

from grading.course import generate, nbgrader

ASSIGNMENT = "zz_judge_death"


def _meta(**kw) -> dict:
    return {"nbgrader": {"schema_version": 3, "locked": False, "grade": False, "solution": False, **kw}}


def _notebook(answer: str) -> nbformat.NotebookNode:
    solution = nbformat.v4.new_code_cell(
        "def answer():\n    ### BEGIN SOLUTION\n" + answer + "\n    ### END SOLUTION",
        metadata=_meta(grade_id="answer", solution=True))
    # the judge stops (as a thread count it cannot start would stop it) when the answer says 2
    first = nbformat.v4.new_code_cell(
        "import os\nif answer() == 2:\n    os._exit(1)\nassert answer() in (1, 2)",
        metadata=_meta(grade_id="test_first", grade=True, points=1, locked=True))
    second = nbformat.v4.new_code_cell(
        "assert answer() in (1, 2)", metadata=_meta(grade_id="test_second", grade=True, points=1, locked=True))
    return nbformat.v4.new_notebook(cells=[solution, first, second], metadata={
        "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}})


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    root = tmp_path_factory.mktemp("death")
    (root / "solutions" / ASSIGNMENT).mkdir(parents=True)
    (root / "grading").mkdir()
    nbformat.write(_notebook("    return 1"), str(root / "solutions" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"))
    db = f"sqlite:///{root / 'grading' / 'gradebook.db'}"
    released = generate(ASSIGNMENT, root, db_url=db)
    # graded in name order: the honest student after the one who stops the judge gets a new judge
    students = {"a-stops-the-judge": "    return 2", "b-honest": "    return 1"}
    for student, answer in students.items():
        dest = root / "grading" / "submitted" / student / ASSIGNMENT
        shutil.copytree(released, dest)
        nbformat.write(_notebook(answer), str(dest / f"{ASSIGNMENT}.ipynb"))
    proc = nbgrader("autograde", ASSIGNMENT, "--force", root=root, db_url=db, timeout=900, check=False)
    from nbgrader.api import Gradebook

    scores, errors = {}, {}
    with Gradebook(db) as gb:
        for student in students:
            scores[student] = gb.find_submission_notebook(ASSIGNMENT, ASSIGNMENT, student).score
            nb = nbformat.read(root / "grading" / "autograded" / student / ASSIGNMENT / f"{ASSIGNMENT}.ipynb",
                               as_version=4)
            errors[student] = [[o.get("ename") for o in c.get("outputs", []) if o.get("output_type") == "error"]
                               for c in nb.cells[1:]]
    return scores, errors, proc.stdout + proc.stderr


def test_a_test_cell_the_judge_stopped_in_scores_nothing_nor_do_later_ones(graded):
    scores, errors, log = graded
    assert scores["a-stops-the-judge"] == 0, f"{scores} {errors}\n{log[-3000:]}"
    assert errors["a-stops-the-judge"] == [["JudgeDied"], ["JudgeDied"]], f"{errors}\n{log[-3000:]}"


def test_the_next_student_is_graded_by_a_judge_that_works(graded):
    scores, errors, log = graded
    assert scores["b-honest"] == 2, f"{scores} {errors}\n{log[-3000:]}"
