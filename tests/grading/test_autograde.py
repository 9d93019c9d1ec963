"""grading/batch/autograde.py: a whole class, with broken and hostile submissions, in one batch.

The hostile class is built from 00_getting_started's solution and learner notebooks; grade
ids, points and solution cells are read from the notebook's nbgrader metadata. The class
is graded once (two workers, a short per-cell limit), and each bad-input case is a test
that reads the outcome back from the course gradebook.

One file of about 840 lines, for that reason: the class is graded once for every test here
(a module-scoped fixture); split across files, each would grade it again.
"""

from __future__ import annotations

import copy
import json
import re
import sqlite3
import subprocess
import sys
import zipfile
from pathlib import Path

import nbformat
import pytest

from grading.batch import autograde as ag
from grading.course import REPO, SOLUTIONS, nbgrader
from grading.trusted.preprocessors import HideHiddenTests, hidden_region
from grading.batch.submissions import SubmissionsError, read_zip
from tests.harness import own_children_left_running

A = "00_getting_started"
NB = f"{A}.ipynb"
CELL_TIMEOUT = 20
# the class holds a notebook with a duplicated cell id on purpose (student "duplicate_id")
pytestmark = [pytest.mark.xdist_group("grading"), pytest.mark.slow,
              pytest.mark.filterwarnings("ignore::nbformat.warnings.DuplicateCellId")]


# ---------------------------------------------------------------- the notebook's shape

def meta(cell) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {})


def solution() -> nbformat.NotebookNode:
    return nbformat.read(SOLUTIONS / A / NB, as_version=4)


def learner() -> nbformat.NotebookNode:
    return nbformat.read(REPO / "notebooks" / A / NB, as_version=4)


def graded_cells() -> dict[str, float]:
    """grade_id -> points of every graded (test) cell, in notebook order."""
    return {meta(c)["grade_id"]: float(meta(c).get("points", 0))
            for c in solution().cells if meta(c).get("grade")}


def solution_cells() -> list[str]:
    """grade_ids of the solution cells that define functions, in notebook order."""
    return [meta(c)["grade_id"] for c in solution().cells
            if meta(c).get("solution") and c.cell_type == "code" and "def " in c.source]


def index_of(nb, grade_id: str) -> int:
    return next(i for i, c in enumerate(nb.cells) if meta(c).get("grade_id") == grade_id)


def later_tests(grade_id: str) -> list[str]:
    """Test cells after the given cell (in the solution notebook)."""
    nb = solution()
    at = index_of(nb, grade_id)
    return [meta(c)["grade_id"] for c in nb.cells[at + 1:] if meta(c).get("grade")]


def first_test_using(func_cell: str) -> str:
    return later_tests(func_cell)[0]


def func_name(nb, grade_id: str) -> str:
    return re.search(r"def (\w+)\(", nb.cells[index_of(nb, grade_id)].source).group(1)


def with_body_prefix(nb, grade_id: str, code: str):
    """A copy whose function in cell grade_id first runs ``code`` (indented into the body)."""
    nb = copy.deepcopy(nb)
    cell = nb.cells[index_of(nb, grade_id)]
    lines = cell.source.splitlines()
    i = next(k for k, ln in enumerate(lines) if ln.lstrip().startswith("def "))
    # skip the docstring line(s) if any: insert right after the 'def' line is valid Python
    # only before the docstring, which is still fine (the docstring becomes a no-op string).
    body = ["    " + ln for ln in code.splitlines()]
    cell.source = "\n".join(lines[: i + 1] + body + lines[i + 1:])
    return nb


def with_cell_suffix(nb, grade_id: str, code: str):
    nb = copy.deepcopy(nb)
    cell = nb.cells[index_of(nb, grade_id)]
    cell.source = cell.source + "\n" + code
    return nb


# ---------------------------------------------------------------- the hostile class

def build_class(folder: Path) -> dict[str, float | None]:
    """Write the hostile class; returns each student's expected total (None: any)."""
    sol, blank = solution(), learner()
    tests = graded_cells()
    total = sum(tests.values())
    f1, f2 = solution_cells()[0], solution_cells()[-1]
    t1 = first_test_using(f1)
    after_f2 = later_tests(f2)
    before_f2 = sum(p for g, p in tests.items() if g not in after_f2)
    expected: dict[str, float | None] = {}

    def put(student, nb=None, raw: bytes | None = None, name=NB, exp=None):
        d = folder / student / A
        d.mkdir(parents=True, exist_ok=True)
        if raw is not None:
            (d / name).write_bytes(raw)
        elif nb is not None:
            nbformat.write(nb, str(d / name))
        expected[student] = exp

    put("solution", sol, exp=total)
    put("blank", blank, exp=0.0)
    # an infinite loop in the first function: its first test cell times out
    put("loop", with_body_prefix(sol, f1, "while True:\n    pass"), exp=total - tests[t1])
    # the kernel dies in the last solution cell: earlier tests keep their scores
    put("exit", with_cell_suffix(sol, f2, "import os\nos._exit(1)"), exp=before_f2)
    put("segfault", with_cell_suffix(sol, f2, "import ctypes\nctypes.string_at(0)"),
        exp=before_f2)
    put("notjson", raw=b"\x00\xff this is not JSON {", exp=0.0)
    put("notnotebook", raw=json.dumps({"hello": "world"}).encode(), exp=0.0)
    # edited test cell (tests replaced by 'pass') with a wrong answer: graded on the original
    edited = copy.deepcopy(with_body_prefix(sol, f1, "return -1"))
    edited.cells[index_of(edited, t1)].source = '"""mine"""\npass'
    put("edited_test", edited, exp=total - tests[t1])
    deleted = copy.deepcopy(sol)
    del deleted.cells[index_of(deleted, t1)]
    put("deleted_test", deleted, exp=total)
    dup = copy.deepcopy(sol)
    dup.cells.insert(index_of(dup, t1) + 1, copy.deepcopy(dup.cells[index_of(dup, t1)]))
    put("duplicate_id", dup, exp=0.0)
    schema = copy.deepcopy(sol)
    schema.cells[index_of(schema, t1)].metadata["nbgrader"]["schema_version"] = 99
    put("schema", schema, exp=0.0)
    md = copy.deepcopy(sol)
    md.cells[index_of(md, f1)].cell_type = "markdown"
    md.cells[index_of(md, f1)].pop("outputs", None)
    md.cells[index_of(md, f1)].pop("execution_count", None)
    put("markdown", md, exp=total)
    (folder / "missing" / A).mkdir(parents=True)
    expected["missing"] = 0.0
    put("renamed", sol, name="my_copy.ipynb", exp=0.0)
    (folder / "renamed" / A / "notes.txt").write_text("extra file")
    put("renamed_alone", sol, name="homework.ipynb", exp=0.0)  # nothing else handed in
    # warnings on stderr, megabytes of output, and code that behaves differently under
    # NBGRADER_EXECUTION, all in one otherwise correct submission: full marks
    noisy = with_body_prefix(
        sol, f1, "import os, warnings\nwarnings.warn('this path is slow', UserWarning)\n"
        "warnings.warn('old API', DeprecationWarning, stacklevel=2)\n"
        "print('NBGRADER_EXECUTION =', os.environ.get('NBGRADER_EXECUTION'))\n"
        "if os.environ.get('NBGRADER_EXECUTION') != 'autograde':\n    return -1")
    # printed before the first test cell: output made after it is not kept (grading/trusted/judge.py)
    put("noisy", with_cell_suffix(noisy, f1, "import os\nprint('NBGRADER_EXECUTION =', "
                                  "os.environ.get('NBGRADER_EXECUTION'))\n"
                                  "print('x' * 3_000_000)\nfor i in range(20000):\n"
                                  "    print(i)"), exp=total)
    build_red_team(folder, put, sol, blank, f1, f2, total)
    return expected


# ---------------------------------------------------------------- the red team (sandbox)
# Attacks a student could put in any cell, graded in the same run. Each scores what the
# same honest work scores without the attack; the tests below check what it could not do.
ORPHAN = "red-team-orphan-5c1d"
SECRET = "red-team-secret-8e2b"
FIND_AND_EXEC_SOLUTIONS = f"""
import glob, json, os
import labkit
_found = []
for _start in [os.getcwd(), os.path.dirname(labkit.__file__), "/", "/tmp", "/work", "/root"]:
    _here = _start
    for _ in range(8):
        _found += glob.glob(os.path.join(_here, "**", "solutions", "*", "*.ipynb"), recursive=False)
        _found += glob.glob(os.path.join(_here, "solutions", "*", "*.ipynb"))
        _here = os.path.dirname(_here)
for _path in sorted(set(_found)):
    for _cell in json.load(open(_path))["cells"]:
        if _cell["cell_type"] == "code" and "def " in "".join(_cell["source"]):
            try:
                exec("".join(_cell["source"]))
            except Exception:
                pass
print("solutions found:", len(set(_found)), "{SECRET}" in str(os.environ))
"""
LEAVE_DAEMON = f"""
import os
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.execv("/bin/sh", ["sh", "-c", "sleep 120; echo forged > /tmp/{ORPHAN} # {ORPHAN}"])
    os._exit(0)
os.wait()
"""
KILL_EVERYTHING = """
import os, signal
for _pid in [int(p) for p in os.listdir("/proc") if p.isdigit()]:
    if _pid != os.getpid():
        try:
            os.kill(_pid, signal.SIGKILL)
        except OSError:
            pass
for _fd in ("/proc/1/fd/1", f"/proc/{os.getppid()}/fd/1"):
    try:
        open(_fd, "w").write('{"student": "ada", "notebooks": {}}\\n')
    except OSError:
        pass
"""
LEAVE_TRAPS = """
import os
os.mkfifo("trap.fifo")
os.symlink("/dev/zero", "zero.bin")
os.symlink("/", "root")
"""


def build_red_team(folder: Path, put, sol, blank, f1, f2, total) -> None:
    # blank answers + code that finds the instructor's solutions and runs them: 0, as blank
    put("rt_walker", with_cell_suffix(blank, f1, FIND_AND_EXEC_SOLUTIONS), exp=0.0)
    # correct answers + a process left behind to rewrite grades later: full, and it is gone
    put("rt_daemon", with_cell_suffix(sol, f2, LEAVE_DAEMON), exp=total)
    # correct answers + kill every visible process, forge a reply on the parent's stdout
    put("rt_killer", with_cell_suffix(sol, f2, KILL_EVERYTHING), exp=total)
    # correct answers + a named pipe and links in the working folder: full, run goes on
    put("rt_traps", with_cell_suffix(sol, f2, LEAVE_TRAPS), exp=total)
    # a notebook of thousands of empty cells: refused at once
    many = copy.deepcopy(blank)
    many.cells += [nbformat.v4.new_code_cell("") for _ in range(5000)]
    put("rt_manycells", many, exp=0.0)
    # a test cell turned into an answer cell: graded as the assignment's test cell
    retyped = copy.deepcopy(with_body_prefix(sol, f1, "return -1"))
    t1 = first_test_using(f1)
    retyped.cells[index_of(retyped, t1)].metadata["nbgrader"].update(grade=False, solution=True)
    put("rt_retyped", retyped, exp=None)
    # an old timestamp handed in: the recorded time is the import's
    put("rt_timestamp", sol, exp=total)
    (folder / "rt_timestamp" / A / "timestamp.txt").write_text("2001-01-01 00:00:00.000000 UTC")
    # a kernelspec edited to name another kernel: the course's kernel runs it anyway
    other = copy.deepcopy(sol)
    other.metadata["kernelspec"] = {"name": "evil", "display_name": "Evil", "language": "python"}
    put("rt_kernelspec", other, exp=total)
    # a student folder that is a link to another student's hand-in: refused, not graded
    (folder / "rt_symlink").symlink_to(folder / "solution")


@pytest.fixture(scope="module")
def graded_class(tmp_path_factory):
    import os
    os.environ["COURSE_RED_TEAM_SECRET"] = SECRET  # in the grader's environment only
    base = tmp_path_factory.mktemp("class")
    course = base / "course"
    (course / "solutions").mkdir(parents=True)
    import shutil
    shutil.copytree(SOLUTIONS / A, course / "solutions" / A)
    subs = base / "submissions"
    expected = build_class(subs)
    opts = ag.Options(A, subs, course, jobs=2, cell_timeout=CELL_TIMEOUT, quiet=True)
    out = ag.autograde(opts)
    scores = {r["student"]: r["score"] for r in out.rows}
    return {"course": course, "subs": subs, "expected": expected, "out": out,
            "scores": scores, "opts": opts}


def autograded(course: Path, student: str):
    return nbformat.read(course / "grading" / "autograded" / student / A / NB, as_version=4)


def cell_score(course: Path, student: str, grade_id: str) -> float:
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course / 'grading' / 'gradebook.db'}") as gb:
        return gb.find_grade(grade_id, A, A, student).score


# ---------------------------------------------------------------- the whole batch

def test_every_student_gets_the_expected_grade(graded_class):
    exp, got = graded_class["expected"], graded_class["scores"]
    assert set(got) == set(exp), f"graded {sorted(got)}, submitted {sorted(exp)}"
    wrong = {s: (got[s], e) for s, e in exp.items() if e is not None and got[s] != e}
    assert not wrong, f"(got, expected) per student: {wrong}\n{graded_class['out'].problems}"


def test_gradebook_is_intact_and_nbgrader_reads_it(graded_class, tmp_path):
    course = graded_class["course"]
    db = sqlite3.connect(course / "grading" / "gradebook.db")
    assert db.execute("pragma integrity_check").fetchone()[0] == "ok"
    db.close()
    proc = nbgrader("export", f"--to={tmp_path / 'export.csv'}", root=course, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    import csv
    rows = {r["student_id"]: float(r["score"]) for r in csv.DictReader(open(tmp_path / "export.csv"))}
    assert rows == graded_class["scores"]
    ours = {r["student_id"]: float(r["score"])
            for r in csv.DictReader(open(course / "grading" / "grades.csv"))}
    assert ours == rows


def test_infinite_loop_times_out_and_the_rest_is_graded(graded_class):
    course = graded_class["course"]
    t1 = first_test_using(solution_cells()[0])
    assert cell_score(course, "loop", t1) == 0
    errors = {o.get("ename") for c in autograded(course, "loop").cells for o in c.get("outputs", [])
              if o.get("output_type") == "error"}
    assert "CellTimeoutError" in errors or "KeyboardInterrupt" in errors, errors
    others = [g for g in graded_cells() if g != t1]
    assert all(cell_score(course, "loop", g) == graded_cells()[g] for g in others)


@pytest.mark.parametrize("student", ["exit", "segfault"])
def test_dead_kernel_keeps_earlier_scores(graded_class, student):
    course = graded_class["course"]
    after = later_tests(solution_cells()[-1])
    for g, pts in graded_cells().items():
        assert cell_score(course, student, g) == (0 if g in after else pts), g
    errors = [o.get("ename") for c in autograded(course, student).cells
              for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert "KernelDied" in errors


@pytest.mark.parametrize("student,words", [
    ("notjson", "not valid JSON"), ("notnotebook", "not a notebook"),
    ("duplicate_id", "more than once"), ("schema", "schema_version")])
def test_bad_notebook_is_reported_for_that_student(graded_class, student, words):
    problems = graded_class["out"].problems
    assert student in problems and any(words in p for p in problems[student]), problems.get(student)
    assert graded_class["scores"][student] == 0


def test_edited_test_cell_is_restored(graded_class):
    nb = autograded(graded_class["course"], "edited_test")
    t1 = first_test_using(solution_cells()[0])
    assert nb.cells[index_of(nb, t1)].source == solution().cells[index_of(solution(), t1)].source


def test_deleted_test_cell_is_restored_and_graded(graded_class):
    nb = autograded(graded_class["course"], "deleted_test")
    t1 = first_test_using(solution_cells()[0])
    assert any(meta(c).get("grade_id") == t1 for c in nb.cells)
    assert cell_score(graded_class["course"], "deleted_test", t1) == graded_cells()[t1]


def test_solution_cell_turned_markdown_is_restored(graded_class):
    nb = autograded(graded_class["course"], "markdown")
    assert nb.cells[index_of(nb, solution_cells()[0])].cell_type == "code"


def test_missing_and_renamed_notebooks_score_zero_and_extras_are_ignored(graded_class):
    course = graded_class["course"]
    for student in ("missing", "renamed", "renamed_alone"):
        assert graded_class["scores"][student] == 0
        assert not (course / "grading" / "autograded" / student / A / "my_copy.ipynb").exists()
    state = json.loads((course / "grading" / "reports" / A / "state.json").read_text())
    assert any("my_copy.ipynb" in n and "ignored" in n for n in state["students"]["renamed"]["notes"])
    alone = state["students"]["renamed_alone"]
    assert any("not submitted" in n for n in alone["notes"]), alone
    assert not alone.get("errors"), f"a renamed notebook is missing work, not a grader failure: {alone}"


def test_the_runs_seed_is_the_instructors_alone(graded_class):
    """The seed of the hidden tests' generated inputs, and the command that draws them again,
    are in the instructor's views: the run's summary, state.json and each student's notes in
    reports/<assignment>/grades.csv, so a disputed grade can be drawn again. Never in a
    student's feedback, nor in the gradebook's comments (formgrader's comment box, which the
    feedback shows)."""
    import csv
    import html
    import os

    from labkit.judge.reset import SEED_ENV

    seed = os.environ[SEED_ENV]
    course = graded_class["course"]
    assert any(f"seed {seed}" in line for line in graded_class["out"].cluster), graded_class["out"].cluster
    state = json.loads((course / "grading" / "reports" / A / "state.json").read_text())
    graded = {sid: s for sid, s in state["students"].items() if "digest" in s}
    assert graded and all(s.get("seed") == seed for s in graded.values()), graded
    notes = {r["student"]: r["notes"]
             for r in csv.DictReader(open(course / "grading" / "reports" / A / "grades.csv"))}
    for sid in ("solution", "rt_daemon", "loop"):
        assert f"seed {seed}" in notes[sid] and f"{SEED_ENV}={seed}" in notes[sid], notes[sid]
    from nbgrader.api import Gradebook

    db_url = f"sqlite:///{course / 'grading' / 'gradebook.db'}"
    with Gradebook(db_url) as gb:
        for sid in ("solution", "rt_daemon", "loop"):
            comments = [c.comment or "" for c in gb.find_submission_notebook(A, A, sid).comments]
            assert not [c for c in comments if seed in c or SEED_ENV in c or "make " in c], \
                (sid, comments)
    for feedback in sorted((course / "grading" / "feedback").glob(f"*/{A}/{A}.html")):
        text = html.unescape(feedback.read_text())
        for secret in (f"seed {seed}", SEED_ENV, "make autograde"):
            assert secret not in text, f"{feedback.parent.parent.name}'s feedback shows {secret!r}"


def test_huge_output_is_capped(graded_class):
    path = graded_class["course"] / "grading" / "autograded" / "noisy" / A / NB
    assert path.stat().st_size < 1_000_000, f"autograded notebook is {path.stat().st_size} bytes"
    assert "capped" in path.read_text() or "truncated" in path.read_text().lower()


def test_grading_mode_is_set_as_nbgrader_sets_it(graded_class):
    text = json.dumps(autograded(graded_class["course"], "noisy").cells)
    assert "NBGRADER_EXECUTION = autograde" in text


def test_red_team_finds_no_solution_and_no_secret(graded_class):
    cells = [c for c in autograded(graded_class["course"], "rt_walker").cells
             if c.cell_type == "code" and "solutions found" in c.source]
    outputs = json.dumps([c.get("outputs") for c in cells])
    assert "solutions found: 0 False" in outputs, f"the walker's own report is missing: {outputs}"
    assert graded_class["scores"]["rt_walker"] == 0


def test_red_team_leaves_no_process_and_forges_no_reply(graded_class):
    import subprocess as sp
    left = sp.run(["pgrep", "-f", ORPHAN], capture_output=True, text=True).stdout.split()
    assert not left, f"a student's process outlived its grading: {left}"
    assert graded_class["scores"]["rt_killer"] == graded_class["expected"]["rt_killer"]
    assert graded_class["scores"]["rt_daemon"] == graded_class["expected"]["rt_daemon"]
    for student in ("ada", "rt_killer"):
        assert not any("ada" in p for p in graded_class["out"].problems.get(student, []))


def test_red_team_traps_are_never_read_back(graded_class):
    course = graded_class["course"]
    for kind in ("autograded", "feedback", "submitted"):
        folder = course / "grading" / kind / "rt_traps" / A
        names = sorted(p.name for p in folder.iterdir()) if folder.exists() else []
        assert not {"trap.fifo", "zero.bin", "root"} & set(names), (kind, names)


def test_red_team_structure_changes_are_explained(graded_class):
    problems, state = graded_class["out"].problems, json.loads(
        (graded_class["course"] / "grading" / "reports" / A / "state.json").read_text())
    assert any("5" in p and "cells" in p for p in problems["rt_manycells"]), problems["rt_manycells"]
    notes = state["students"]["rt_retyped"]["notes"]
    assert any("type was changed" in n for n in notes), notes
    assert any("rt_symlink" in p and "symbolic link" in p for p in problems["(import)"])
    assert "rt_symlink" not in graded_class["scores"]


def test_red_team_submission_time_is_the_imports(graded_class):
    from nbgrader.api import Gradebook

    db = f"sqlite:///{graded_class['course'] / 'grading' / 'gradebook.db'}"
    with Gradebook(db) as gb:
        stamp = gb.find_submission(A, "rt_timestamp").timestamp
    assert stamp is not None and stamp.year >= 2026, stamp


def test_no_worker_or_kernel_left_running(graded_class):
    # the browser suite's JupyterLab and Chromium (session fixtures) may share this test
    # process: their process trees are not the grader's
    left = own_children_left_running()
    assert not left, [p.cmdline() for p in left]


# ---------------------------------------------------------------- feedback and reports

def test_feedback_hides_hidden_tests_code_by_default(graded_class):
    course = graded_class["course"]
    hidden_lines = []
    for c in solution().cells:
        region = hidden_region(c.source) if meta(c).get("grade") else None
        if region:
            lines = c.source.splitlines()[region[0]:region[1] - 1]
            hidden_lines += [ln.strip() for ln in lines if len(ln.strip()) > 12]
    assert hidden_lines, "the notebook has no hidden tests to hide"
    import html
    for student in ("solution", "blank", "loop"):
        text = html.unescape((course / "grading" / "feedback" / student / A / f"{A}.html").read_text())
        shown = [ln for ln in hidden_lines if ln in text]
        assert not shown, f"{student}'s feedback shows hidden test code: {shown[:2]}"
        assert "hidden tests" in text


def test_the_import_stage_alone_writes_submitted_and_returns_plain_data(tmp_path):
    """autograde's import stage is one call: it writes grading/submitted/ and says, as plain
    data, whom to grade and when each content came in; nothing is graded. A second import of
    the same content keeps the first import's time."""
    import dataclasses
    import shutil

    course = tmp_path / "course"
    shutil.copytree(SOLUTIONS / A, course / "solutions" / A)
    subs = tmp_path / "subs"
    for student in ("ada", "ben"):
        (subs / student / A).mkdir(parents=True)
        shutil.copy(REPO / "notebooks" / A / NB, subs / student / A / NB)
    opts = ag.Options(A, subs, course=course)
    db_url = f"sqlite:///{course / 'grading' / 'gradebook.db'}"
    state = ag.read_state(course / "grading" / "reports" / A / "state.json")
    intake = ag.import_class(opts, state, db_url)
    assert [sid for sid, _, _ in intake.todo] == ["ada", "ben"] and intake.unchanged == []
    assert (course / "grading" / "submitted" / "ada" / A / NB).is_file()
    assert not (course / "grading" / "autograded").exists()
    assert json.loads(json.dumps(dataclasses.asdict(intake), default=bytes.hex))["problems"] == []
    state["students"]["ada"] = {"imported": "2026-01-01 00:00:00 UTC"}
    assert ag.import_class(opts, state, db_url).imported_at["ada"] == "2026-01-01 00:00:00 UTC"


def test_hide_preprocessor_names_the_failed_hidden_test():
    cell = nbformat.v4.new_code_cell(
        '"""t"""\nassert f(1) == 1\n### BEGIN HIDDEN TESTS\nassert f(2) == 2\n'
        'assert f(0) == 0, "zero is its own image"\n### END HIDDEN TESTS',
        metadata={"nbgrader": {"grade": True, "grade_id": "t", "points": 1}})
    cell.outputs = [nbformat.v4.new_output(
        "error", ename="AssertionError", evalue="zero is its own image",
        traceback=["\x1b[0;31mAssertionError\x1b[0m  Traceback (most recent call last)",
                   "Cell \x1b[0;32mIn[4], line 5\x1b[0m\n      3 ### BEGIN HIDDEN TESTS\n"
                   "      4 assert f(2) == 2\n----> 5 assert f(0) == 0, \"zero is its own image\"",
                   "\x1b[0;31mAssertionError\x1b[0m: zero is its own image"])]
    nb = nbformat.v4.new_notebook(cells=[cell])
    out, _ = HideHiddenTests().preprocess(nb, {})
    c = out.cells[0]
    assert "f(2)" not in c.source and "f(0)" not in c.source and "assert f(1) == 1" in c.source
    assert c.outputs[0].traceback == ["Hidden test 2 of 2 failed",
                                      "AssertionError: zero is its own image"]


def test_hide_preprocessor_hides_every_hidden_region():
    """A test cell with two hidden regions (as 03's test_naive_allreduce): neither shows, and
    a failure in the second is named as a hidden test, without its line."""
    cell = nbformat.v4.new_code_cell(
        '"""t"""\nassert f(1) == 1\n### BEGIN HIDDEN TESTS\ndef secret_helper_one(x):\n'
        '    return f(x)\n### END HIDDEN TESTS\nassert f(3) == 3\n### BEGIN HIDDEN TESTS\n'
        'secret_helper_two_call(f, [2, 0])\n### END HIDDEN TESTS',
        metadata={"nbgrader": {"grade": True, "grade_id": "t", "points": 1}})
    cell.outputs = [nbformat.v4.new_output(
        "error", ename="AssertionError", evalue="zero",
        traceback=["\x1b[0;31mAssertionError\x1b[0m  Traceback (most recent call last)",
                   "Cell \x1b[0;32mIn[4], line 9\x1b[0m\n      8 ### BEGIN HIDDEN TESTS\n"
                   "----> 9 secret_helper_two_call(f, [2, 0])",
                   "\x1b[0;31mAssertionError\x1b[0m: zero"])]
    out, _ = HideHiddenTests().preprocess(nbformat.v4.new_notebook(cells=[cell]), {})
    c = out.cells[0]
    assert "secret_helper" not in c.source and "assert f(3) == 3" in c.source, c.source
    assert c.source.count("hidden tests:") == 2, c.source
    assert c.outputs[0].traceback == ["Hidden test 2 of 2 failed", "AssertionError: zero"]
    # the course's own: no line of any hidden region of any notebook shows
    from grading.course import assignments
    from grading.trusted.preprocessors import hidden_regions

    for a in assignments():
        nb = nbformat.read(SOLUTIONS / a / f"{a}.ipynb", as_version=4)
        secret = []
        for cell in nb.cells:
            if not meta(cell).get("grade"):
                continue
            lines = cell.source.splitlines()
            inside = {i for first, last in hidden_regions(cell.source) for i in range(first, last - 1)}
            shown = "\n".join(c.source for c in nb.cells if c is not cell)
            shown += "\n".join(ln for i, ln in enumerate(lines) if i not in inside)
            secret += [ln.strip() for i, ln in enumerate(lines)
                       if i in inside and len(ln.strip()) > 12 and ln.strip() not in shown]
        assert secret, f"{a}: no hidden line to look for"
        out, _ = HideHiddenTests().preprocess(nb, {})
        text = "\n".join(c.source for c in out.cells)
        assert not [ln for ln in secret if ln in text], (a, [ln for ln in secret if ln in text][:3])


def test_hide_preprocessor_keeps_no_hidden_line_in_any_output():
    """No output of the feedback quotes hidden code: not a traceback of a cell without hidden
    tests that went through a helper defined in another cell's hidden region, not a warning's
    source line; a failed hidden test's message comes as plain text (no terminal escapes,
    no control characters)."""
    graded = {"nbgrader": {"grade": True, "grade_id": "a", "points": 1}}
    a = nbformat.v4.new_code_cell(
        '"""a"""\n### BEGIN HIDDEN TESTS\ndef check_secretly(v):\n    assert v < 3, f"v was {v}"\n'
        "check_secretly(f(5))\n### END HIDDEN TESTS", metadata=graded)
    a.outputs = [
        nbformat.v4.new_output("stream", name="stderr", text="/tmp/ipykernel_1/2.py:3: UserWarning: "
                               "slow\n  def check_secretly(v):\nkept line\n"),
        nbformat.v4.new_output("error", ename="AssertionError", evalue="\x1b[31mv was 5\r\x07\x1b[8m",
                               traceback=["Cell \x1b[0;32mIn[2], line 5\x1b[0m\n----> 5 check_secretly(f(5))",
                                          "AssertionError: v was 5"])]
    b = nbformat.v4.new_code_cell('"""b"""\ncheck_secretly(f(7))',
                                  metadata={"nbgrader": {**graded["nbgrader"], "grade_id": "b"}})
    b.outputs = [nbformat.v4.new_output("error", ename="AssertionError", evalue="v was 7", traceback=[
        "Cell In[3], line 2\n----> 2 check_secretly(f(7))",
        "Cell In[2], line 4, in check_secretly(v)\n      3 def check_secretly(v):\n"
        '----> 4     assert v < 3, f"v was {v}"', "AssertionError: v was 7"])]
    out, _ = HideHiddenTests().preprocess(nbformat.v4.new_notebook(cells=[a, b]), {})
    text = json.dumps([c.outputs for c in out.cells])
    assert "def check_secretly" not in text and "assert v < 3" not in text, text
    assert "kept line" in text and "check_secretly(f(7))" in text
    assert out.cells[0].outputs[1].traceback == ["Hidden test 2 of 2 failed",
                                                 "AssertionError: v was 5"]


def test_feedback_names_no_path_of_the_grader():
    """The grading machine's paths (its Python environment, the course, its temporary folder)
    in a student's outputs show as <python>, <course>, <tmp> in the feedback."""
    import tempfile

    from grading.trusted.preprocessors import HideGraderPaths

    venv, tmp = sys.prefix, tempfile.gettempdir()
    cell = nbformat.v4.new_code_cell("import labkit")
    cell.outputs = [
        nbformat.v4.new_output("error", ename="PermissionError",
                               evalue=f"[Errno 13] Permission denied: '{REPO}/labkit/__init__.py'",
                               traceback=[f"File \x1b[0;32m{venv}/lib/python3.11/site-packages/torch/x.py:12"
                                          "\x1b[0m, in f", f"PermissionError: '{REPO}/labkit/__init__.py'"]),
        nbformat.v4.new_output("stream", name="stderr", text=f"{tmp}/judge-x1/a.py:3: UserWarning: w\n")]
    out, _ = HideGraderPaths().preprocess(nbformat.v4.new_notebook(cells=[cell]), {})
    text = json.dumps(out.cells[0].outputs)
    assert str(REPO) not in text and venv not in text and tmp + "/" not in text, text
    assert "'<course>/labkit/__init__.py'" in out.cells[0].outputs[0].evalue
    assert "<python>/lib/python3.11/site-packages/torch/x.py:12" in out.cells[0].outputs[0].traceback[0]
    assert out.cells[0].outputs[1].text.startswith("<tmp>/judge-x1/a.py:3")


def test_item_report_counts_full_partial_none(graded_class):
    out = graded_class["out"]
    n = len(graded_class["scores"])
    assert [i["cell"] for i in out.items] == list(graded_cells())
    for item in out.items:
        assert item["full"] + item["partial"] + item["none"] == n
        full = sum(1 for r in out.rows if r["cells"][item["cell"]] == item["points"])
        assert item["full"] == full
    reports = graded_class["course"] / "grading" / "reports" / A
    assert (reports / "items.png").read_bytes()[:4] == b"\x89PNG"
    assert (reports / "items.csv").read_text().splitlines()[0] == "cell,points,full,partial,none,mean"


def test_rerun_regrades_only_changed_submissions(graded_class):
    subs, opts = graded_class["subs"], graded_class["opts"]
    before = dict(graded_class["scores"])
    out = ag.autograde(opts)
    assert out.graded == [] and sorted(out.unchanged) == sorted(before)
    assert {r["student"]: r["score"] for r in out.rows} == before
    nbformat.write(solution(), str(subs / "blank" / A / NB))  # blank hands in a full answer
    out = ag.autograde(opts)
    assert out.graded == ["blank"], out.graded
    after = {r["student"]: r["score"] for r in out.rows}
    assert after["blank"] == sum(graded_cells().values())
    assert {s: v for s, v in after.items() if s != "blank"} == \
        {s: v for s, v in before.items() if s != "blank"}
    graded_class["scores"] = after


def test_hidden_flag_chooses_the_feedback_preprocessors(tmp_path):
    from grading.batch.grade_worker import load_config

    from grading.trusted.preprocessors import HideGraderPaths

    hide = load_config(tmp_path, "hide").GenerateFeedback.preprocessors
    show = load_config(tmp_path, "show").GenerateFeedback.preprocessors
    assert HideHiddenTests in hide and HideHiddenTests not in show
    assert HideGraderPaths in hide and HideGraderPaths in show
    proc = run_cli(A, str(tmp_path), "--hidden", "everything")
    assert proc.returncode == 2 and "HIDDEN=hide" in proc.stderr, proc.stderr


# ---------------------------------------------------------------- import and usage errors

def test_zip_with_student_ids_in_file_names(tmp_path):
    z = tmp_path / "lms.zip"
    data = nbformat.writes(solution()).encode()
    with zipfile.ZipFile(z, "w") as zf:
        zf.writestr(f"ada_{A}.ipynb", data)
        zf.writestr(f"bob_1234_5678_{A}-1.ipynb", data)
        zf.writestr("bob_1234_5678_notes.txt", b"hi")
        zf.writestr("cy_something_else.ipynb", data)
    students, problems = read_zip(z, A, [NB])
    assert sorted(students) == ["ada", "bob", "cy"]
    assert list(students["bob"].files) == [NB, "1234_5678_notes.txt"] or NB in students["bob"].files
    assert NB not in students["cy"].files and students["cy"].notes


def test_zip_without_student_ids_is_a_clear_error(tmp_path):
    z = tmp_path / "lms.zip"
    with zipfile.ZipFile(z, "w") as zf:
        zf.writestr("nounderscore.ipynb", b"{}")
    with pytest.raises(SubmissionsError, match="no student ids recognised.*PATTERN"):
        read_zip(z, A, [NB])


def run_cli(*args):
    return subprocess.run([sys.executable, str(REPO / "grading" / "batch" / "autograde.py"), *args],
                          capture_output=True, text=True, cwd=REPO, timeout=120)


@pytest.mark.parametrize("args,words", [
    ((), "no ASSIGNMENT"),
    ((A,), "no SUBMISSIONS"),
    ((A, "/nonexistent/class.zip"), "no such folder or zip"),
    (("99_nope", "."), "unknown assignment '99_nope'"),
])
def test_usage_errors_name_the_problem_and_the_fix(args, words, capsys):
    assert ag.main(list(args)) == 2
    err = capsys.readouterr().err
    assert words in err, err


def test_warnings_on_stderr_keep_full_marks(graded_class):
    assert graded_class["scores"]["noisy"] == sum(graded_class_total().values())


def graded_class_total() -> dict[str, float]:
    return graded_cells()


# ---------------------------------------------------------------- reasons and plumbing

def test_loop_and_dead_kernel_are_listed_with_the_reason(graded_class, capsys):
    """grades.csv and the summary table say why a student lost points without a wrong
    answer: the cell interrupted at the time limit, the cell in which the kernel died."""
    import csv
    course, opts, out = graded_class["course"], graded_class["opts"], graded_class["out"]
    notes = {r["student"]: r["notes"]
             for r in csv.DictReader(open(course / "grading" / "reports" / A / "grades.csv"))}
    t1, f2 = first_test_using(solution_cells()[0]), solution_cells()[-1]
    assert f"interrupted at the {CELL_TIMEOUT} s per-cell time limit" in notes["loop"], notes["loop"]
    assert f"({t1})" in notes["loop"], notes["loop"]
    for student in ("exit", "segfault"):
        assert f"the kernel died in cell {index_of(solution(), f2) + 1} ({f2})" in notes[student], \
            notes[student]
    assert "interrupted" not in notes["solution"] and "kernel died" not in notes["solution"]
    ag.print_summary(opts, out)
    rows = {ln.split()[0]: ln for ln in capsys.readouterr().out.splitlines() if ln.strip()}
    assert "graded; " in rows["loop"] and "interrupted at the" in rows["loop"], rows["loop"]
    assert "kernel died in cell" in rows["exit"], rows["exit"]
    assert rows["solution"].split()[-1] == "graded", rows["solution"]


@pytest.mark.parametrize("student", ["solution", "loop", "exit", "edited_test"])
def test_feedback_shows_no_grader_plumbing(graded_class, student):
    """The judge's boot cell (labkit.judge.session.connect, the learner kernel's connection and key) never
    takes a submission cell's place, and each prompt number shows once."""
    import collections
    import html
    course = graded_class["course"]
    nb = autograded(course, student)
    assert [c.source for c in nb.cells[:1]] == [c.source for c in solution().cells[:1]]
    text = html.unescape((course / "grading" / "feedback" / student / A / f"{A}.html").read_text())
    for secret in ("labkit.judge", "__json", "signature_scheme", "hmac-sha256", "control_port",
                   str(REPO), sys.prefix, str(course)):
        assert secret not in text, f"{student}'s feedback shows {secret!r}"
    counts = [c.execution_count for c in nb.cells if c.cell_type == "code"
              and c.execution_count is not None]
    prompts = re.findall(r"In\s*\[(\d+)\]:", text)
    assert counts and prompts, "nothing ran?"
    for numbers in (counts, prompts):
        twice = [n for n, k in collections.Counter(numbers).items() if k > 1]
        assert not twice, f"{student}: prompt numbers shown more than once: {twice}"


# ---------------------------------------------------------------- the grader's own failures

def test_regrade_on_request_and_a_graders_failure_is_never_stored(graded_class, monkeypatch):
    """REGRADE= grades named students again though nothing changed; a result the grader
    could not produce (its error, not the student's) changes nothing in the gradebook, is
    listed as the grader's, and the next run grades that student again."""
    import dataclasses

    from grading.batch import cluster

    opts = graded_class["opts"]
    before = {r["student"]: r["score"] for r in ag.autograde(opts).rows}
    out = ag.autograde(dataclasses.replace(opts, regrade="blank"))
    assert out.graded == ["blank"] and "blank" not in out.unchanged, out.graded
    with pytest.raises(ag.UsageError, match="nobody"):
        ag.autograde(dataclasses.replace(opts, regrade="nobody"))

    def failing(opts, template, todo, on_result, on_lost, limit, report):
        for student, _ in todo:
            on_result({"student": student, "grader_error": "the learner's kernel cannot "
                       "import the course's code (PermissionError: ...)"})

    monkeypatch.setattr(cluster, "grade_all", failing)
    out = ag.autograde(dataclasses.replace(opts, regrade="all"))
    assert sorted(out.grader_errors) == sorted(before) and out.graded == [], out.graded
    assert {r["student"]: r["score"] for r in out.rows} == before, "a grader error was stored"
    assert "PermissionError" in out.problems["blank"][0]
    monkeypatch.undo()
    out = ag.autograde(opts)   # still the old digests in the state: nothing to redo
    assert out.graded == [] and {r["student"]: r["score"] for r in out.rows} == before


def test_a_course_whose_code_cannot_be_imported_is_the_graders_failure(tmp_path, monkeypatch):
    """The learner's kernel cannot import the course's labkit (here: a copy that raises): no
    submitted cell has run, so the grading process reports the grader's failure, naming
    the cause, after trying twice, and gives no grade (before: every test cell timed out and
    the student scored 0)."""
    from grading.trusted import sandbox
    from grading.batch.grade_worker import Worker

    import os
    import shutil

    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    course = tmp_path / "course"
    shutil.copytree(SOLUTIONS / A, course / "solutions" / A)
    template = ag.prepare_template(ag.Options(A, tmp_path, course), tmp_path / "work")
    broken = tmp_path / "broken" / "labkit"
    broken.mkdir(parents=True)
    (broken / "__init__.py").write_text("raise ImportError('the course code is broken here')\n")
    monkeypatch.setattr(sandbox, "LABKIT", broken)
    hand_in = tmp_path / "ada"
    hand_in.mkdir()
    nbformat.write(solution(), str(hand_in / NB))
    result = Worker(template, A, "hide", sandbox=True).grade("ada", str(hand_in))
    assert "the course code is broken here" in result.get("grader_error", ""), result
    assert "notebooks" not in result and not result.get("graded"), result


def test_item_plot_counts_whole_students_and_its_legend_covers_no_bar():
    """items.png: the axis counts students (no half-students on a class of 2) and the legend
    sits outside the bars (it covered the longest ones, which reach the class size)."""
    import matplotlib.pyplot as plt

    from grading.batch.reports import items_figure

    items = [{"cell": f"test_{i}", "full": f, "partial": p, "none": 2 - f - p}
             for i, (f, p) in enumerate([(2, 0), (1, 1), (0, 0)])]
    fig = items_figure(items, "00: credit per test cell (2 students)")
    try:
        ax = fig.axes[0]
        ticks = [t for t in ax.get_xticks() if ax.get_xlim()[0] <= t <= ax.get_xlim()[1]]
        assert ticks and all(float(t).is_integer() for t in ticks), ticks
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        legend = ax.get_legend().get_window_extent(renderer)
        bars = [p.get_window_extent(renderer) for p in ax.patches if p.get_width() > 0]
        assert not any(legend.overlaps(b) for b in bars), "the legend covers a bar"
    finally:
        plt.close(fig)
