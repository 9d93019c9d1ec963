"""A class graded into a real PostgreSQL gradebook, and two grading runs at once on it.

The server is Debian's PostgreSQL (``make system`` installs it), started by the fixture
in a scratch folder on a Unix socket only, as an unprivileged user, and stopped after.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest

from grading.batch import autograde as ag
from grading.course import NOTEBOOKS, REPO, SOLUTIONS
from tests.harness import CellGraph

A = "00_getting_started"
pytestmark = [pytest.mark.xdist_group("grading"), pytest.mark.slow]


def _bin(name: str) -> str:
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    if not found:
        pytest.fail(f"PostgreSQL's {name} not found: run 'make system' (it installs Debian's "
                    "postgresql package)")
    return found[-1]


@pytest.fixture(scope="module")
def postgres():
    """A running server; yields its SQLAlchemy URL for a database named course."""
    import tempfile

    base = Path(tempfile.mkdtemp(prefix="course-pg-"))  # not under pytest's 0700 folders
    base.chmod(0o755)
    data, sock = base / "data", base / "sock"
    sock.mkdir()
    as_user: list[str] = []
    if os.geteuid() == 0:  # PostgreSQL refuses to run as root
        for p in (base, sock):
            os.chown(p, 65534, 65534)
        as_user = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    env = dict(os.environ, LC_ALL="C.UTF-8", HOME=str(base))
    run = lambda *cmd: subprocess.run(as_user + list(cmd), env=env, cwd=base,  # noqa: E731
                                      capture_output=True, text=True, timeout=120)
    r = run(_bin("initdb"), "-D", str(data), "-U", "grader", "--auth=trust", "-E", "UTF8")
    assert r.returncode == 0, r.stderr
    r = run(_bin("pg_ctl"), "-D", str(data), "-l", str(base / "log"), "-w", "-t", "60",
            "-o", f"-k {sock} -c listen_addresses='' -p 5439", "start")
    assert r.returncode == 0, r.stdout + r.stderr + (base / "log").read_text(errors="replace")
    try:
        r = run(_bin("createdb"), "-h", str(sock), "-p", "5439", "-U", "grader", "course")
        assert r.returncode == 0, r.stderr
        yield f"postgresql+psycopg2://grader@/course?host={sock}&port=5439"
    finally:
        run(_bin("pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop")
        shutil.rmtree(base, ignore_errors=True)


def make_class(folder: Path, students: dict[str, str]) -> dict[str, float]:
    """Write each student's notebook (solution or blank, handed in without the demo cells,
    which no grade reads: tests/harness.py); returns the expected totals."""
    sol = nbformat.read(SOLUTIONS / A / f"{A}.ipynb", as_version=4)
    blank = nbformat.read(NOTEBOOKS / A / f"{A}.ipynb", as_version=4)
    sol, blank = CellGraph(sol).trim(sol), CellGraph(blank).trim(blank)
    full = sum(float(c.metadata["nbgrader"].get("points", 0)) for c in sol.cells
               if c.metadata.get("nbgrader", {}).get("grade"))
    expected = {}
    for student, kind in students.items():
        d = folder / student / A
        d.mkdir(parents=True)
        nbformat.write(sol if kind == "solution" else blank, str(d / f"{A}.ipynb"))
        expected[student] = full if kind == "solution" else 0.0
    return expected


def new_course(base: Path) -> Path:
    shutil.copytree(SOLUTIONS / A, base / "solutions" / A)
    (base / "grading").mkdir()
    return base


def gradebook_rows(db_url: str) -> dict[str, list[float]]:
    """Every submission of the assignment in the database: student -> [scores]."""
    import sqlalchemy as sa

    engine = sa.create_engine(db_url)
    with engine.connect() as conn:
        rows = conn.execute(sa.text(
            "select s.student_id, count(*) from submitted_assignment s "
            "join assignment a on a.id = s.assignment_id where a.name = :a group by s.student_id"),
            {"a": A}).fetchall()
    engine.dispose()
    from nbgrader.api import Gradebook

    out = {}
    with Gradebook(db_url) as gb:
        for student, count in rows:
            out[student] = [float(gb.find_submission(A, student).score)] * count
    return out


def test_class_graded_into_postgresql(postgres, tmp_path):
    subs = tmp_path / "subs"
    expected = make_class(subs, {"ada": "solution", "ben": "blank", "cy": "solution"})
    course = new_course(tmp_path / "course")
    out = ag.autograde(ag.Options(A, subs, course, jobs=2, cell_timeout=60, quiet=True,
                                  db_url=postgres))
    assert {r["student"]: r["score"] for r in out.rows} == expected, out.problems
    assert gradebook_rows(postgres) == {s: [v] for s, v in expected.items()}
    assert not (course / "grading" / "gradebook.db").exists(), "graded into SQLite instead"
    # nbgrader's own export reads the same database
    import csv
    rows = {r["student_id"]: float(r["score"])
            for r in csv.DictReader(open(course / "grading" / "grades.csv"))}
    assert {s: rows[s] for s in expected} == expected


def test_two_grading_runs_at_once_lose_and_double_nothing(postgres, tmp_path):
    """Two graders (two course folders, as on two machines) grade overlapping halves of a
    class into one database at the same time: every student once, with the right score."""
    a_subs, b_subs = tmp_path / "a", tmp_path / "b"
    expected = make_class(a_subs, {"dan": "solution", "eve": "blank", "fox": "solution"})
    expected |= make_class(b_subs, {"fox": "solution", "gil": "blank", "hui": "solution"})
    procs = []
    for name, subs in (("one", a_subs), ("two", b_subs)):
        course = new_course(tmp_path / name)
        procs.append(subprocess.Popen(
            [sys.executable, str(REPO / "grading" / "batch" / "autograde.py"), A, str(subs),
             "--course", str(course), "--db-url", postgres, "--jobs", "1",
             "--cell-timeout", "60", "--quiet"],
            cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True))
        time.sleep(0.2)
    logs = [p.communicate(timeout=1200)[0] for p in procs]
    assert [p.returncode for p in procs] == [0, 0], "\n\n".join(t[-3000:] for t in logs)
    got = gradebook_rows(postgres)
    assert {s: got[s] for s in expected} == {s: [v] for s, v in expected.items()}, got
