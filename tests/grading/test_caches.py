"""Caches in an assignment folder (JupyterLab's, Python's, Hypothesis's) are not the course:
never released to learners, handed in by a student, or graded."""

from __future__ import annotations

import runpy
import shutil
from pathlib import Path

import pytest

import grading.course as course
from grading.course import CACHES, generate, scratch_course

ASSIGNMENT = "00_getting_started"
PLANTED = [".hypothesis/constants/0123abcd", ".hypothesis/.gitignore",
           "__pycache__/helper.cpython-311.pyc", ".ipynb_checkpoints/x-checkpoint.ipynb", "stale.pyc"]


def _plant(folder: Path) -> None:
    for rel in PLANTED:
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text("a cache\n")


def _files(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())


@pytest.mark.parametrize("where", ["solutions folder", "scratch course"])
def test_release_leaves_caches_behind(where, tmp_path, monkeypatch):
    """Planted in the author's solutions folder (what running the solution leaves there), the
    caches stay out of the scratch course; planted in the scratch course, nbgrader's own copy
    leaves them out (CourseDirectory.ignore)."""
    if where == "solutions folder":
        solutions = tmp_path / "solutions"
        shutil.copytree(course.SOLUTIONS / ASSIGNMENT, solutions / ASSIGNMENT,
                        ignore=shutil.ignore_patterns(*CACHES))
        _plant(solutions / ASSIGNMENT)
        monkeypatch.setattr(course, "SOLUTIONS", solutions)
    root = scratch_course(tmp_path / "course", [ASSIGNMENT])
    if where == "scratch course":
        _plant(root / "solutions" / ASSIGNMENT)
    out = generate(ASSIGNMENT, root, db_url=f"sqlite:///{tmp_path / 'gb.db'}")
    assert _files(out) == _files(course.NOTEBOOKS / ASSIGNMENT), _files(out)


def test_a_student_hands_in_no_cache(monkeypatch):
    """The hub's student config (which cannot import grading/) ignores every cache."""
    from traitlets.config import Config

    monkeypatch.setenv("COURSE_EXCHANGE", "/nonexistent")
    c = Config()
    runpy.run_path(str(course.CONFIG_DIR / "hub" / "student" / "nbgrader_config.py"),
                   init_globals={"get_config": lambda: c})
    ignored = set(c.CourseDirectory.ignore)
    assert set(CACHES) <= ignored, sorted(set(CACHES) - ignored)

