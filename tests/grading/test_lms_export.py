"""grading/batch/lms_export.py: the Canvas and Moodle grade files, read back as an LMS reads them.

The gradebook is nbgrader's own (SQLite), filled through nbgrader's API: an assignment of
two test cells (2 + 3 points), a student with a full roster entry (names, email, Canvas
id), one with only an id, and one without a submission.
"""

from __future__ import annotations

import csv
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from grading.batch import lms_export
from grading.course import REPO

A = "hw1"


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> Path:
    """The gradebook, made once (nbgrader creates a database through alembic: seconds)."""
    import os

    from nbgrader.api import Gradebook

    path = tmp_path_factory.mktemp("lms") / "gradebook.db"
    saved = os.environ.get("PATH", "")
    os.environ["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), saved])
    try:
        with Gradebook(f"sqlite:///{path}") as gb:
            gb.add_assignment(A)
            gb.add_notebook(A, A)
            gb.add_grade_cell("test_one", A, A, max_score=2, cell_type="code")
            gb.add_grade_cell("test_two", A, A, max_score=3, cell_type="code")
            gb.add_student("ada", first_name="Ada", last_name="Lovelace",
                           email="ada@example.org", lms_user_id="101")
            gb.add_student("ben")
            gb.add_student("cy", first_name="Cy", last_name="Young")  # no submission
            for student, scores in (("ada", (2, 2.5)), ("ben", (0, 1))):
                gb.add_submission(A, student)
                for cell, score in zip(("test_one", "test_two"), scores):
                    gb.find_grade(cell, A, A, student).auto_score = score
            gb.db.commit()
    finally:
        os.environ["PATH"] = saved
    return path


@pytest.fixture
def gradebook(template, tmp_path) -> str:
    """A course folder of its own with a copy of the gradebook; its SQLAlchemy URL."""
    (tmp_path / "grading").mkdir()
    shutil.copyfile(template, tmp_path / "grading" / "gradebook.db")
    return f"sqlite:///{tmp_path / 'grading' / 'gradebook.db'}"


def read(path: Path) -> list[list[str]]:
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.reader(f))


def test_canvas_csv_has_canvas_columns_and_a_points_possible_row(gradebook, tmp_path):
    files = lms_export.write_lms_files(gradebook, A, tmp_path / "out", canvas_id="1234")
    rows = read(files["canvas"])
    assert rows[0] == ["Student", "ID", "SIS User ID", "Section", f"{A} (1234)"]
    assert rows[1] == ["Points Possible", "", "", "", "5"]
    assert rows[2:] == [["Lovelace, Ada", "101", "ada", "", "4.5"],
                        ["ben", "", "ben", "", "1"]], "cy has no submission: left out"


def test_canvas_column_without_an_id_is_a_new_assignment(gradebook, tmp_path, monkeypatch):
    monkeypatch.delenv("CANVAS_ASSIGNMENT_ID", raising=False)
    files = lms_export.write_lms_files(gradebook, A, tmp_path / "out")
    assert read(files["canvas"])[0][-1] == A
    monkeypatch.setenv("CANVAS_ASSIGNMENT_ID", "987")
    files = lms_export.write_lms_files(gradebook, A, tmp_path / "out")
    assert read(files["canvas"])[0][-1] == f"{A} (987)"


def test_moodle_csv_has_an_identifier_and_a_grade_column(gradebook, tmp_path):
    files = lms_export.write_lms_files(gradebook, A, tmp_path / "out")
    rows = read(files["moodle"])
    assert rows[0] == ["First name", "Last name", "Username", "Email address", A]
    assert rows[1:] == [["Ada", "Lovelace", "ada", "ada@example.org", "4.5"],
                        ["", "", "ben", "", "1"]]
    grades = {r["Username"]: float(r[A]) for r in csv.DictReader(open(files["moodle"]))}
    assert grades == {"ada": 4.5, "ben": 1.0}


def test_bad_canvas_id_is_one_line_naming_the_fix(gradebook, tmp_path, capsys, monkeypatch):
    with pytest.raises(lms_export.LmsExportError, match=r"CANVAS_ASSIGNMENT_ID=.*e\.g\."):
        lms_export.write_canvas(tmp_path / "c.csv", A, [], 5.0, canvas_id="hw-one")
    # after a grading run the files are still written, the bad id reported in one line
    monkeypatch.setenv("CANVAS_ASSIGNMENT_ID", "hw-one")
    files = lms_export.write_lms_files(gradebook, A, tmp_path / "out")
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "CANVAS_ASSIGNMENT_ID='hw-one'" in err
    assert read(files["canvas"])[0][-1] == A


def test_command_line(gradebook, tmp_path):
    course = Path(gradebook[len("sqlite:///"):]).parent.parent
    run = lambda *args: subprocess.run(  # noqa: E731
        [sys.executable, str(REPO / "grading" / "batch" / "lms_export.py"), *args, "--course", str(course)],
        capture_output=True, text=True, timeout=120)
    ok = run(A, "--canvas-id", "55")
    assert ok.returncode == 0, ok.stderr
    assert read(course / "grading" / "reports" / A / "canvas.csv")[0][-1] == f"{A} (55)"
    assert (course / "grading" / "reports" / A / "moodle.csv").is_file()
    for args, words in (((A, "--canvas-id", "x1"), "CANVAS_ASSIGNMENT_ID"),
                        (("hw9",), "not in the gradebook")):
        bad = run(*args)
        assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1, bad.stderr
        assert words in bad.stderr
