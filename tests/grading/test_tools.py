"""The course's tools: nbbuild, validate, release, the Makefile's checks and make lab."""

from __future__ import annotations

import json
import os
import re
import secrets
import signal
import shutil
import subprocess
import sys
import time
import tomllib
import urllib.request
from pathlib import Path

import nbformat
import pytest

from grading.tools import nbbuild
from grading.course import NOTEBOOKS, REPO, SOLUTIONS, assignments, read_json_notebook
from tests.ports import free_ports

FIRST = "00_getting_started"


def test_nbbuild_round_trip_of_every_solution():
    for name in assignments():
        nb = nbformat.read(SOLUTIONS / name / f"{name}.ipynb", as_version=4)
        again = nbbuild.build(nbbuild.export(nb), name=name)
        # The draft form does not keep trailing blank lines; nothing else may change.
        assert ([c.source.rstrip("\n") for c in again.cells]
                == [c.source.rstrip("\n") for c in nb.cells]), name
        for a, b in zip(again.cells, nb.cells):
            meta_a = a.metadata.get("nbgrader", {})
            meta_b = {k: v for k, v in b.metadata.get("nbgrader", {}).items() if k != "checksum"}
            assert {k: v for k, v in meta_a.items() if k in meta_b} == meta_b, name
            # ids too (the Colab set-up cell's is read by its id), but for graded cells, which
            # build names by their grade id
            if not meta_b.get("grade_id"):
                assert a.id == b.id, f"{name}: cell {b.id!r} came back as {a.id!r}"


@pytest.mark.parametrize("draft,match", [
    ("print(1)\n", "text before the first"),
    ("# %% [solution]\nx = 1\n", r"needs id=<grade_id>"),
    ("# %% [tests] id=t\nassert 1\n", r"needs points=<number>"),
    ("# %% [markdown]\nnot a comment\n", "markdown line without"),
    ("# %% [solution] id=a\nx\n# %% [tests] id=a points=1\ny\n", "used twice"),
])
def test_nbbuild_rejects_bad_drafts(draft, match):
    with pytest.raises(nbbuild.DraftError, match=match):
        nbbuild.build(draft, name="draft.py")


def test_nbbuild_cli_writes_atomically(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("# %% [solution]\nx = 1\n")
    dest = tmp_path / "out.ipynb"
    dest.write_text("previous")
    proc = subprocess.run([sys.executable, str(REPO / "grading/tools/nbbuild.py"), "build", str(bad),
                           str(dest)], capture_output=True, text=True)
    assert proc.returncode == 1 and "needs id=<grade_id>" in proc.stderr
    assert dest.read_text() == "previous", "a failed build must not touch the notebook"


def _validate(path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(REPO / "grading/tools/validate.py"), str(path)],
                          capture_output=True, text=True, timeout=300)


def test_validate_reports_each_test_cell():
    ok = _validate(SOLUTIONS / FIRST / f"{FIRST}.ipynb")
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert re.search(r"PASS\s+test_tensor_nbytes", ok.stdout)
    blank = _validate(NOTEBOOKS / FIRST / f"{FIRST}.ipynb")
    assert blank.returncode == 1
    assert re.search(r"FAIL\s+test_tensor_nbytes .*NotImplementedError", blank.stdout), blank.stdout
    assert "0 of" in blank.stdout


def test_validate_shows_the_failure_message(tmp_path):
    nb = nbformat.read(SOLUTIONS / FIRST / f"{FIRST}.ipynb", as_version=4)
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == "transfer_time":
            cell.source = "def transfer_time(nbytes, bandwidth_gb_s, latency_us):\n    return 0.0\n"
    path = tmp_path / "mine.ipynb"
    nbformat.write(nb, str(path))
    before = path.read_bytes()
    proc = _validate(path)
    assert proc.returncode == 1
    assert re.search(r"FAIL\s+test_transfer_time .*AssertionError: an empty message costs only "
                     r"the latency", proc.stdout), proc.stdout
    assert re.search(r"PASS\s+test_tensor_nbytes", proc.stdout)
    assert path.read_bytes() == before, "validate must not modify the notebook"


@pytest.mark.parametrize("content,match", [
    (None, "does not exist"),
    ("{not json", "not valid JSON"),
    ('{"cells": 3}', "not a valid notebook"),
])
def test_validate_bad_input_is_one_clear_line(tmp_path, content, match):
    path = tmp_path / "work.ipynb"
    if content is not None:
        path.write_text(content)
    proc = _validate(path)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and match in lines[0], proc.stderr


def test_read_json_notebook_rejects_other_files(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("hi")
    with pytest.raises(ValueError, match="not a notebook"):
        read_json_notebook(path)


def _make(*args, env=None) -> subprocess.CompletedProcess:
    full = dict(os.environ, **(env or {}))
    return subprocess.run(["make", "--no-print-directory", *args], cwd=REPO, capture_output=True,
                          text=True, env=full, timeout=300)


def test_make_validate_without_a_notebook_says_how():
    proc = _make("validate", "NB=missing.ipynb")
    assert proc.returncode != 0
    assert "validate: missing.ipynb does not exist; usage: make validate NB=" in proc.stderr


def _tiny_assignment(path: Path) -> Path:
    """A three-test nbgrader notebook: one test waits on an unwritten answer, one fails, one passes."""
    from nbgrader.utils import compute_checksum

    def cell(source, **meta):
        c = nbformat.v4.new_code_cell(source)
        c.metadata["nbgrader"] = dict(schema_version=3, task=False, **meta)
        c.metadata["nbgrader"]["checksum"] = compute_checksum(c)
        return c

    nb = nbformat.v4.new_notebook()
    nb.cells = [
        cell("def answer():\n    # YOUR CODE HERE\n    raise NotImplementedError()",
             grade=False, grade_id="answer", locked=False, solution=True),
        cell("assert answer() == 42", grade=True, grade_id="test_answer", locked=True, points=1, solution=False),
        cell("assert 1 + 1 == 3, 'one plus one is two'", grade=True, grade_id="test_sum", locked=True,
             points=1, solution=False),
        cell("assert 2 == 2", grade=True, grade_id="test_fine", locked=True, points=1, solution=False),
    ]
    nbformat.write(nb, str(path))
    return path


@pytest.mark.parametrize("config", ["grading", "grading/hub/student"])
def test_validate_button_says_what_make_validate_says(tmp_path, monkeypatch, config):
    """nbgrader's Validate button (its server extension loads the nbgrader_config.py of the
    course, or of a hub student's server, the way this test does) reports one line per failed
    test cell, as make validate does."""
    from nbgrader.apps import NbGrader
    from nbgrader.validator import Validator

    from grading.tools.validate import NOT_DONE

    monkeypatch.setenv("COURSE_EXCHANGE", str(tmp_path / "exchange"))  # the hub's config reads it
    path = _tiny_assignment(tmp_path / "tiny.ipynb")
    app = NbGrader()
    app.config_file_paths.append([str(REPO / config)])
    app.load_config_file()
    errors = [f["raw_error"] for f in Validator(config=app.config).validate(str(path))["failed"]]
    assert errors == [NOT_DONE, "AssertionError: one plus one is two"], errors
    # Without the course's configuration, nbgrader shows a whole traceback per cell.
    plain = [f["raw_error"] for f in Validator().validate(str(path))["failed"]]
    assert len(plain) == 2 and all("Traceback" in e for e in plain), plain


def test_make_validate_prints_results_without_kernel_warnings(tmp_path):
    path = _tiny_assignment(tmp_path / "tiny.ipynb")
    proc = _validate(path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert re.search(r"FAIL\s+test_answer .*not done yet", proc.stdout), proc.stdout
    assert re.search(r"FAIL\s+test_sum .*AssertionError: one plus one is two", proc.stdout), proc.stdout
    assert re.search(r"PASS\s+test_fine", proc.stdout), proc.stdout
    assert "without encryption" not in proc.stdout + proc.stderr, proc.stderr
    assert proc.stderr.strip() == "", proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tiny.ipynb"], "validate left files behind"


def test_make_validate_reports_failures_without_makes_error_line(tmp_path):
    """Failing tests are validate's report: make ends on its summary, not on make's own
    'Error 1' line (that is kept for a notebook it cannot check)."""
    path = _tiny_assignment(tmp_path / "tiny.ipynb")
    proc = _make("validate", f"NB={path}")
    assert proc.returncode == 0 and "1 of 3 test cells pass" in proc.stdout, proc.stdout
    assert "Error" not in proc.stderr, proc.stderr


def test_validate_names_a_notebook_as_make_reset_does(tmp_path, monkeypatch):
    """NB=NN_topic (or NN_topic.ipynb) is the learner's copy in work/, made from the
    release when missing; a path to a file is that file; anything else is named back."""
    from grading.tools import validate, workcopy

    monkeypatch.setattr(workcopy, "WORK", tmp_path / "work")
    mine = tmp_path / "work" / FIRST / f"{FIRST}.ipynb"
    assert validate.resolve(FIRST) == mine and mine.is_file()
    assert validate.resolve(f"{FIRST}.ipynb") == mine
    other = _tiny_assignment(tmp_path / "tiny.ipynb")
    assert validate.resolve(str(other)) == other
    with pytest.raises(FileNotFoundError):
        validate.resolve("99_nothing")


def _fake_python(folder: Path, version: tuple[int, int]) -> Path:
    """An interpreter that says it is Python ``version`` (this one, with sys.version_info set)."""
    fake = folder / f"python{version[0]}.{version[1]}"
    fake.write_text("#!/bin/sh\n"
                    f'[ "$1" = --version ] && {{ echo "Python {version[0]}.{version[1]}.0"; exit 0; }}\n'
                    f'exec {sys.executable} -c "import sys; sys.version_info = ({version[0]}, '
                    f'{version[1]}, 0, \'final\', 0); exec(sys.argv[1])" "$2"\n')
    fake.chmod(0o755)
    return fake


def test_wrong_python_is_one_clear_line(tmp_path):
    for python in (_fake_python(tmp_path, (3, 10)), _fake_python(tmp_path, (3, 14)),
                   tmp_path / "no-such-python"):
        proc = _make("check-python", f"PYTHON={python}")
        assert proc.returncode != 0, python
        line = [ln for ln in proc.stderr.splitlines() if ln.startswith("error:")]
        assert line and "needs Python 3.11, 3.12 or 3.13" in line[0], proc.stderr
        assert "PYTHON=/path/to/python3.13" in line[0], line


def test_make_test_py313_without_python_3_13_is_one_clear_line(tmp_path):
    proc = _make("test-py313", f"PY313={tmp_path / 'no-such-python'}")
    assert proc.returncode != 0
    line = [ln for ln in proc.stderr.splitlines() if ln.startswith("error:")]
    assert line and "run: make test-py313 PY313=/path/to/python3.13" in line[0], proc.stderr


def test_python_3_11_to_3_13_each_get_their_own_venv(tmp_path):
    """check-python takes 3.11-3.13; 3.11 installs into .venv, 3.12 and 3.13 into .venv312 and
    .venv313, each with the test and mxnet extras (MXNet's marker leaves it out past 3.11)."""
    for version, venv in (((3, 11), ".venv"), ((3, 12), ".venv312"), ((3, 13), ".venv313")):
        python = _fake_python(tmp_path, version)
        assert _make("check-python", f"PYTHON={python}").returncode == 0, version
        proc = _make("-n", "-B", "lint", f"PYTHON={python}")
        assert proc.returncode == 0, proc.stderr
        assert f"{python} -m venv {venv}\n" in proc.stdout, proc.stdout
        assert f"{venv}/bin/python -m pip install --quiet -e '.[test,mxnet]'" in proc.stdout


def test_ci_runs_exactly_the_readme_test_command():
    """README's Quick start gives the two commands in one code block; .ci/run ends with the
    second, as written there (its comment after # aside)."""
    readme = (REPO / "README.md").read_text()
    quick = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```bash\n(.*?)```", quick, re.S).group(1)
    commands = [ln.split("#", 1)[0].strip() for ln in block.splitlines() if ln.strip()]
    assert commands == ["make lab", "make test"], commands
    ci = [ln.strip() for ln in (REPO / ".ci/run").read_text().splitlines()
          if ln.strip() and not ln.strip().startswith("#")]
    assert ci[-1] == commands[1], ci


def _pins(requirements, python="3.11"):
    """Name -> 'name==version' of the requirements whose marker holds on ``python``."""
    from packaging.requirements import Requirement

    reqs = [Requirement(r) for r in requirements]
    return {r.name.lower(): f"{r.name}{r.specifier}" for r in reqs
            if r.marker is None or r.marker.evaluate({"python_version": python})}


def test_environment_yml_has_the_same_pins_as_pyproject():
    """environment.yml is the Python 3.11 set-up: the pins that hold there, MXNet's extra too."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    wanted = _pins(project["dependencies"] + extras["mxnet"] + extras["test"])
    text = (REPO / "environment.yml").read_text()
    listed = _pins(re.findall(r"^\s+- ([A-Za-z0-9_.-]+==[^\s]+)\s*$", text, re.M))
    assert "python=3.11" in text
    assert listed == wanted
    assert wanted["numpy"] == "numpy==1.23.5" and wanted["mxnet"] == "mxnet==1.9.1"


def test_python_3_12_and_3_13_get_numpy_2_and_no_mxnet():
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert project["requires-python"] == ">=3.11,<3.14"
    for python in ("3.12", "3.13"):
        pins = _pins(project["dependencies"] + project["optional-dependencies"]["mxnet"], python)
        assert pins["numpy"].startswith("numpy==2.") and "mxnet" not in pins, pins
        assert pins["torch"] == "torch==2.13.0"


def test_make_lab_serves_notebooks_with_nbgrader(tmp_path):
    port, token = free_ports(), secrets.token_hex(16)
    args = f"--no-browser --port={port} --ServerApp.ip=127.0.0.1 --IdentityProvider.token={token}"
    proc = subprocess.Popen(["make", "--no-print-directory", "lab", f"LAB_ARGS={args}"], cwd=REPO,
                            stdout=subprocess.DEVNULL, stderr=open(tmp_path / "lab.log", "w"),
                            env=dict(os.environ, JUPYTER_RUNTIME_DIR=str(tmp_path)),
                            start_new_session=True)
    base = f"http://127.0.0.1:{port}"

    def get(path):
        sep = "&" if "?" in path else "?"
        with urllib.request.urlopen(f"{base}{path}{sep}token={token}", timeout=10) as r:
            return r.status, r.read().decode()

    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                status, _ = get("/api/status")
                break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise AssertionError((tmp_path / "lab.log").read_text()[-3000:]) from None
                time.sleep(0.5)
        assert status == 200
        _, listing = get("/api/contents")
        names = {item["name"] for item in json.loads(listing)["content"]}
        assert FIRST in names, f"make lab should serve notebooks/, it shows {names}"
        _, page = get("/lab")
        assert "@jupyter/nbgrader" in page, "nbgrader's JupyterLab extension is not loaded"
        status, _ = get("/formgrader")
        assert status == 200
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def test_lint_ignores_grading_work_folders():
    """make lint must stay green after an instructor has graded (git-ignored notebooks there)."""
    folder = REPO / "grading" / "reports" / "lint-check"
    folder.mkdir(parents=True, exist_ok=True)
    bad = folder / "submitted.ipynb"
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("import os\nx = 1\nimport sys")]
    nbformat.write(nb, str(bad))
    try:
        ruff = Path(sys.executable).parent / "ruff"
        proc = subprocess.run([str(ruff), "check", "labkit", "grading", "tests", "benchmarks"],
                              cwd=REPO, capture_output=True, text=True)
        assert proc.returncode == 0, proc.stdout[-2000:]
    finally:
        bad.unlink()
        folder.rmdir()


def test_a_late_output_never_drops_a_submission():
    """nbgrader's Execute raises when a cell's outputs trail its reply by 4 s (a student's
    thread that keeps printing), and the submission is then removed ungraded; the course's
    executors go on to the next cell instead."""
    from nbgrader.preprocessors import Execute

    from grading.trusted.judge import JudgedExecute
    from grading.trusted.preprocessors import RobustExecute

    assert Execute().raise_on_iopub_timeout
    assert not RobustExecute().raise_on_iopub_timeout
    assert not JudgedExecute().raise_on_iopub_timeout
    # ... but waits for them well past nbgrader's 4 s: a loaded grader's late print is kept
    assert RobustExecute().iopub_timeout >= 30 and JudgedExecute().iopub_timeout >= 30


def test_hub_stop_counts_a_hub_that_exited_but_is_not_yet_reaped_as_stopped(tmp_path):
    """make hub-stop waits for the hub's process to end; a hub started by a program that reaps
    it only after the stop returns (a test's Popen) is a zombie meanwhile: stopped, not a
    180 s wait."""
    from grading.hub.run import stop

    # a stand-in that ends on SIGINT as the hub does (grading/hub/run.py restores SIGINT's
    # default before it starts the hub), also where this test runs as a shell's background
    # job, whose children inherit SIGINT ignored
    hub = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"],
                           preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        (tmp_path / "jupyterhub.pid").write_text(str(hub.pid))
        start = time.monotonic()
        assert stop(tmp_path, wait_s=30) == 0          # SIGINT ends it; it is not reaped yet
        assert time.monotonic() - start < 10
        assert hub.poll() is not None                  # now reaped here
    finally:
        hub.kill()
        hub.wait()


def test_grade_demo_help_says_what_it_does_and_grades_nothing():
    """``python grading/batch/demo.py --help`` answers; it does not wipe the last demo and grade a
    class (it took no arguments and ran whatever it was given)."""
    from grading.batch.demo import DEMO

    made = not DEMO.exists()
    DEMO.mkdir(parents=True, exist_ok=True)
    marker = DEMO / "kept-by-a-test"
    marker.write_text("")
    try:
        got = subprocess.run([sys.executable, "grading/batch/demo.py", "--help"], cwd=REPO,
                             capture_output=True, text=True, timeout=60)
        assert got.returncode == 0 and "a synthetic class of 00_getting_started" in got.stdout, got
        assert marker.exists(), "--help wiped the last demo"
        wrong = subprocess.run([sys.executable, "grading/batch/demo.py", "--students", "3"], cwd=REPO,
                               capture_output=True, text=True, timeout=60)
        assert wrong.returncode == 2 and "unrecognized arguments" in wrong.stderr, wrong
        assert marker.exists()
    finally:
        marker.unlink(missing_ok=True)
        if made:
            shutil.rmtree(DEMO, ignore_errors=True)


@pytest.mark.parametrize("script", sorted(p.name for p in (REPO / "benchmarks").glob("*.py")))
def test_every_benchmark_answers_help_and_names_a_bad_argument(script):
    """An instructor's first try (--help, or a typo) gets the usage, not a run of minutes or
    a ValueError traceback."""
    run = lambda *a: subprocess.run([sys.executable, f"benchmarks/{script}", *a], cwd=REPO,  # noqa: E731
                                    capture_output=True, text=True, timeout=120)
    got = run("--help")
    assert got.returncode == 0 and got.stdout.startswith("usage:"), (got.stdout, got.stderr[-800:])
    bad = run("--no-such-option")
    assert bad.returncode == 2 and "usage:" in bad.stderr and "Traceback" not in bad.stderr, \
        bad.stderr[-800:]
