"""A learner's working copy is not the release (grading/tools/workcopy.py, make lab, make reset).

make lab opens work/, made from notebooks/ on first use and kept; make reset puts one
notebook, or one exercise of it, back to the state generated from solutions/, keeping the
rest; make grade-demo's blank student is generated from solutions/, not read from a folder
somebody answers in. Every check runs on a scratch working copy (the repository's work/
is never touched).
"""

from __future__ import annotations

import json
import os
import re
import secrets
import subprocess
import time
import urllib.request
from pathlib import Path

import nbformat
import pytest

from grading.tools import workcopy
from grading.course import NOTEBOOKS, REPO, SOLUTIONS
from tests.ports import free_ports

A = "00_getting_started"
NB = f"{A}.ipynb"


def solution_cells(nb) -> dict[str, str]:
    return {c.metadata["nbgrader"]["grade_id"]: c.source for c in nb.cells
            if c.metadata.get("nbgrader", {}).get("solution") and c.cell_type == "code"}


def answer(path: Path, grade_id: str, code: str) -> None:
    nb = nbformat.read(path, as_version=4)
    cell = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)
    cell.source = code
    nbformat.write(nb, path)


@pytest.fixture
def work(tmp_path):
    w = tmp_path / "work"
    assert sorted(workcopy.ensure(w)) == sorted(p.name for p in NOTEBOOKS.iterdir()
                                                if p.is_dir() and not p.name.startswith("."))
    return w


def test_make_lab_makes_a_working_copy_once_and_keeps_it(work):
    mine = work / A / NB
    answer(mine, "tensor_nbytes", "def tensor_nbytes(t):\n    return 42")
    (work / "01_async_execution").rename(work.parent / "gone")  # a new assignment comes later
    assert workcopy.ensure(work) == ["01_async_execution"]
    assert "return 42" in mine.read_text(), "ensure overwrote the learner's answer"
    assert "return 42" not in (NOTEBOOKS / A / NB).read_text()


def test_reset_one_exercise_keeps_the_rest(work):
    mine = work / A / NB
    answer(mine, "tensor_nbytes", "def tensor_nbytes(t):\n    return 42")
    answer(mine, "transfer_time", "def transfer_time(n, bw):\n    return 7")
    msg = workcopy.reset(A, "tensor_nbytes", work)
    cells = solution_cells(nbformat.read(mine, as_version=4))
    assert "raise NotImplementedError" in cells["tensor_nbytes"], msg
    assert "return 7" in cells["transfer_time"], "reset of one exercise lost another answer"
    backups = list((work / A / ".reset").glob("*.ipynb"))
    assert backups and "return 42" in backups[0].read_text()


def test_reset_puts_back_a_deleted_exercise_in_its_place(work):
    mine = work / A / NB
    nb = nbformat.read(mine, as_version=4)
    ids = [c.metadata.get("nbgrader", {}).get("grade_id") for c in nb.cells]
    nb.cells.pop(ids.index("transfer_time"))
    nbformat.write(nb, mine)
    workcopy.reset(A, "transfer_time", work)
    after = [c.metadata.get("nbgrader", {}).get("grade_id")
             for c in nbformat.read(mine, as_version=4).cells]
    assert after == ids


def test_reset_a_whole_notebook(work):
    mine = work / A / NB
    answer(mine, "tensor_nbytes", "def tensor_nbytes(t):\n    return 42")
    other = work / "01_async_execution" / "01_async_execution.ipynb"
    other.write_text(other.read_text().replace("raise NotImplementedError()", "pass  # mine", 1))
    workcopy.reset(f"notebooks/{A}/{NB}", None, work)
    fresh = solution_cells(nbformat.read(mine, as_version=4))
    assert all("raise NotImplementedError" in src for src in fresh.values()), fresh
    assert solution_cells(nbformat.read(mine, as_version=4)) == \
        solution_cells(nbformat.read(NOTEBOOKS / A / NB, as_version=4))
    assert "pass  # mine" in other.read_text(), "resetting 00 touched 01"


def test_reset_names_the_problem(work, capsys):
    with pytest.raises(workcopy.WorkError, match="tensor_nbytes, test_tensor_nbytes"):
        workcopy.reset(A, "no_such_cell", work)
    with pytest.raises(workcopy.WorkError, match="use one of 00_getting_started"):
        workcopy.reset("99_nothing", None, work)
    p = subprocess.run(["make", "--no-print-directory", "reset", "NB=99_nothing"], cwd=REPO,
                       capture_output=True, text=True, timeout=300)
    assert p.returncode != 0 and "make reset NB=00_getting_started" in p.stderr, p.stderr


def test_the_demo_class_blank_student_is_generated_from_solutions(monkeypatch, tmp_path):
    """grade-demo's untouched student is the generated learner version, even when the
    folder a learner works in holds answers."""
    from grading.batch import demo

    answered = tmp_path / "notebooks"
    (answered / A).mkdir(parents=True)
    (answered / A / NB).write_bytes((SOLUTIONS / A / NB).read_bytes())
    monkeypatch.setattr("grading.course.NOTEBOOKS", answered)
    monkeypatch.setattr(demo, "NOTEBOOKS", answered, raising=False)
    blank = nbformat.reads(demo.build_class()[f"ben_{NB}"].decode(), as_version=4)
    cells = solution_cells(blank)
    assert cells and all("raise NotImplementedError" in s for s in cells.values()), cells


def test_make_lab_has_no_news_popup(tmp_path):
    """make lab's JupyterLab reads grading/lab/overrides.json: no "Jupyter news?" toast."""
    token, port = secrets.token_hex(16), free_ports()
    dry = subprocess.run(["make", "-n", "--no-print-directory", "lab", f"LAB_ROOT={tmp_path}",
                          f"LAB_ARGS=--no-browser --port={port} --IdentityProvider.token={token}"],
                         cwd=REPO, capture_output=True, text=True, timeout=120)
    line = next(ln for ln in dry.stdout.splitlines() if "jupyter lab" in ln)
    env = dict(os.environ, JUPYTER_CONFIG_PATH=str(REPO / "grading"),
               JUPYTER_RUNTIME_DIR=str(tmp_path / "rt"))
    proc = subprocess.Popen(line, shell=True, cwd=REPO, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        url = (f"http://127.0.0.1:{port}/lab/api/settings/"
               f"@jupyterlab/apputils-extension:notification?token={token}")
        deadline, got = time.monotonic() + 180, None
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                with urllib.request.urlopen(url, timeout=5) as r:
                    got = json.load(r)
                break
            except OSError:
                time.sleep(1)
        assert got, f"make lab's JupyterLab did not answer ({line})"
        props = got["schema"]["properties"]  # the overrides are the schema's defaults
        assert props["fetchNews"]["default"] == "false" and got["settings"].get(
            "fetchNews", "false") == "false", props["fetchNews"]
    finally:
        os.killpg(proc.pid, 15)
        proc.wait(timeout=60)


def test_work_is_git_ignored():
    p = subprocess.run(["git", "check-ignore", "-q", "work/00_getting_started/x.ipynb"],
                       cwd=REPO)
    assert p.returncode == 0, "work/ (the learner's working copy) must be git-ignored"
    assert re.search(r"(?m)^LAB_ROOT \?= work$", (REPO / "Makefile").read_text())
