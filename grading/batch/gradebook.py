"""The gradebook stage of batch grading: nbgrader's own gradebook (SQLite, or any SQLAlchemy
URL such as PostgreSQL), written by one process at a time under a lock, one transaction per
student."""

from __future__ import annotations

import os
import warnings
from contextlib import contextmanager
from pathlib import Path


def course_db_url(course: Path) -> str:
    return os.environ.get("COURSE_DB_URL") or f"sqlite:///{course / 'grading' / 'gradebook.db'}"


_LOCK_KEY = 0x6E62_6772  # one advisory-lock key for the course gradebook


@contextmanager
def gradebook_lock(db_url: str):
    """Hold the gradebook for writing, against every other grading run at the same time.

    PostgreSQL (a class server, graders on several machines): an advisory lock held on a
    connection of its own. SQLite: an exclusive lock on a file beside the database.
    """
    if db_url.startswith(("postgresql", "postgres:")):
        import sqlalchemy as sa

        engine = sa.create_engine(db_url, poolclass=sa.pool.NullPool)
        try:
            with engine.connect() as conn:
                conn.execute(sa.text("SELECT pg_advisory_lock(:k)"), {"k": _LOCK_KEY})
                try:
                    yield
                finally:
                    conn.execute(sa.text("SELECT pg_advisory_unlock(:k)"), {"k": _LOCK_KEY})
        finally:
            engine.dispose()
    elif db_url.startswith("sqlite:///"):
        import fcntl

        path = Path(db_url[len("sqlite:///"):])
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path.with_name(path.name + ".lock"), "a") as f:
            fcntl.flock(f, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(f, fcntl.LOCK_UN)
    else:
        yield


def seed_note(seed: str) -> str:
    """The line that records a grading run's seed of the hidden tests' generated inputs."""
    from labkit.judge.reset import SEED_ENV

    return (f"Hidden tests' generated inputs: seed {seed} (to draw the same again: "
            f"{SEED_ENV}={seed} make autograde ...)")


def merge_result(db_url: str, assignment: str, result: dict, timestamp: str | None) -> None:
    """Write one student's grades into the course gradebook, in one transaction."""
    from nbgrader.api import Gradebook
    from nbgrader.utils import parse_utc

    student = result["student"]
    with gradebook_lock(db_url), Gradebook(db_url) as gb, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SQLAlchemy autoflush notes from inside nbgrader
        try:
            gb.update_or_create_student(student)
            kwargs = {"timestamp": parse_utc(timestamp)} if timestamp else {}
            gb.update_or_create_submission(assignment, student, **kwargs)
            for nb in gb.find_assignment(assignment).notebooks:
                sn = gb.find_submission_notebook(nb.name, assignment, student)
                got = result.get("notebooks", {}).get(nb.name, {})
                grades = got.get("grades", {})
                for g in sn.grades:
                    r = grades.get(g.name, {})
                    g.auto_score = r.get("auto_score", 0.0) if r else 0.0
                    g.needs_manual_grade = bool(r.get("needs_manual_grade", False))
                    g.manual_score = None
                    g.extra_credit = None
                for c in sn.comments:
                    c.auto_comment = got.get("comments", {}).get(c.name)
                    c.manual_comment = None
            gb.db.commit()
        except Exception:
            gb.db.rollback()
            raise


def read_gradebook(db_url: str, assignment: str) -> tuple[list[dict], dict[str, float]]:
    """(per student: score, max score and per-cell scores; max score per test cell)."""
    from nbgrader.api import Gradebook

    rows = []
    with Gradebook(db_url) as gb:
        a = gb.find_assignment(assignment)
        cells = {f"{nb.name}/{c.name}" if len(a.notebooks) > 1 else c.name: c.max_score
                 for nb in a.notebooks for c in nb.grade_cells}
        for sub in sorted(a.submissions, key=lambda s: s.student.id):
            per = {}
            for sn in sub.notebooks:
                for g in sn.grades:
                    key = f"{sn.name}/{g.name}" if len(a.notebooks) > 1 else g.name
                    per[key] = float(g.score or 0.0)
            rows.append({"student": sub.student.id, "score": float(sub.score or 0.0),
                         "max_score": float(sub.max_score or 0.0), "cells": per,
                         "needs_manual_grade": bool(sub.needs_manual_grade)})
    return rows, cells
