"""Colab, as close as this machine gets: every notebook links to itself on Colab (badge, README)
and starts with grading/tools/colab.py's set-up cell; that cell, run against a local copy of the
repository, installs labkit into a bare Python where google.colab is imported and does nothing
where it is not; labkit's own check (Colab has no Validate button) runs without nbgrader."""

from __future__ import annotations

import copy
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat

from grading.tools import colab
from grading.course import NOTEBOOKS, REPO, SOLUTIONS, assignments


def test_every_notebook_has_its_colab_badge_and_set_up_cell():
    readme = (REPO / "README.md").read_text()
    for a in assignments():
        for folder in (SOLUTIONS, NOTEBOOKS):
            nb = nbformat.read(folder / a / f"{a}.ipynb", as_version=4)
            assert nbformat.writes(colab.with_colab(copy.deepcopy(nb), a)) == nbformat.writes(nb), (
                f"{folder.name}/{a}: its Colab badge or set-up cell is missing or stale: run "
                "python grading/tools/colab.py, then make release")
            assert nb.cells[0].source.split("\n")[2] == colab.badge(a)
            assert [c for c in nb.cells if c.cell_type == "code"][0].id == colab.CELL_ID
        assert colab.colab_url(a).endswith(f"/blob/main/notebooks/{a}/{a}.ipynb")
        assert f"({colab.colab_url(a)})" in readme, f"README links to no Colab copy of {a}"


def test_the_set_up_cell_is_replaced_not_doubled_when_its_id_was_lost():
    """A rebuild that renumbered the set-up cell's id: grading/tools/colab.py puts it back once."""
    nb = nbformat.read(SOLUTIONS / "00_getting_started" / "00_getting_started.ipynb", as_version=4)
    renumbered = copy.deepcopy(nb)
    next(c for c in renumbered.cells if c.get("id") == colab.CELL_ID).id = "cell-001"
    again = colab.with_colab(renumbered, "00_getting_started")
    assert nbformat.writes(again) == nbformat.writes(nb)


def _local_copy(dest: Path) -> Path:
    """A git repository holding what pip builds labkit from (the working tree's copy)."""
    dest.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / name, dest / name)
    shutil.copytree(REPO / "labkit", dest / "labkit", ignore=shutil.ignore_patterns("__pycache__"))
    git = ["git", "-C", str(dest), "-c", "user.name=course", "-c", "user.email=course@localhost"]
    for args in (["init", "-q"], ["add", "."], ["commit", "-q", "-m", "course"]):
        subprocess.run(git + args, check=True, capture_output=True)
    return dest


def test_colab_cell_installs_labkit_from_the_repository_only_on_colab(tmp_path):
    source = colab.setup_cell_source()
    url = colab.repository()
    assert source.count(f'"{url}"') == 1
    local = _local_copy(tmp_path / "course")
    (tmp_path / "cell.py").write_text(source.replace(f'"{url}"', f'"{local.as_uri()}"'))
    fake = tmp_path / "fake-colab" / "google" / "colab"  # what Colab's kernel has imported
    fake.mkdir(parents=True)
    (fake.parent / "__init__.py").write_text("")
    (fake / "__init__.py").write_text("")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, capture_output=True)
    python = str(venv / "bin" / "python")
    env = {k: v for k, v in os.environ.items()  # a bare runtime: no grading mode, no venv
           if k not in ("PYTHONPATH", "VIRTUAL_ENV", "NBGRADER_EXECUTION", "NBGRADER_VALIDATING")}
    where = [python, "-c", "import importlib.util as u; s = u.find_spec('labkit'); print(s and s.origin)"]

    def cell(colab_imported: bool) -> subprocess.CompletedProcess:
        run = "exec(open('cell.py').read())"
        code = f"import google.colab; {run}" if colab_imported else run
        extra = {"PYTHONPATH": str(tmp_path / "fake-colab")} if colab_imported else {}
        return subprocess.run([python, "-c", code], cwd=tmp_path, env={**env, **extra},
                              capture_output=True, text=True, timeout=600)

    elsewhere = cell(False)
    assert elsewhere.returncode == 0 and not elsewhere.stdout + elsewhere.stderr, elsewhere.stderr
    assert subprocess.run(where, cwd=tmp_path, env=env, capture_output=True, text=True).stdout.strip() == "None"

    on_colab = cell(True)
    assert on_colab.returncode == 0, on_colab.stderr[-2000:]
    found = subprocess.run(where, cwd=tmp_path, env=env, capture_output=True, text=True).stdout.strip()
    assert found.startswith(str(venv)) and found.endswith("labkit/__init__.py"), found
    # labkit imports there without PyTorch or nbgrader (--no-deps), its self-check among it
    proc = subprocess.run([python, "-c", "import hypothesis, cloudpickle, labkit; "
                           "print(callable(labkit.validation.check), labkit.grading_mode())"],
                          cwd=tmp_path, env=env, capture_output=True, text=True)
    assert proc.stdout.split() == ["True", "False"], proc.stderr


def test_labkit_check_validates_without_nbgrader(tmp_path):
    """labkit.validation.check() with nbgrader unimportable: one line per test cell, as make
    validate prints them, False until every test cell passes."""
    from tests.grading.test_tools import _tiny_assignment

    path = _tiny_assignment(tmp_path / "tiny.ipynb")
    code = ("import sys; sys.modules['nbgrader'] = None\n"
            "from labkit.validation import check\n"
            f"print('result', check({str(path)!r}))\n"
            "print('nbgrader' in sys.modules and sys.modules['nbgrader'] is not None)")
    proc = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    lines = proc.stdout.splitlines()
    assert any(ln.split()[:2] == ["FAIL", "test_answer"] and "not done yet" in ln for ln in lines), lines
    assert any(ln.split()[:2] == ["FAIL", "test_sum"] and "one plus one is two" in ln for ln in lines)
    assert any(ln.split()[:2] == ["PASS", "test_fine"] for ln in lines), lines
    assert "1 of 3 test cells pass (1/3 points)" in proc.stdout and lines[-2:] == ["result False", "False"]
