"""The hub's exchange trusts no student: collect reads only what each student owns, through
descriptors opened without following links; inbound is sticky; the course's exchange
folders are root's before any student can make them; one exchange serves one course
(grading/hub/exchange.py). Real Unix accounts, made and removed here."""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from grading.course import SOLUTIONS
from grading.hub import exchange, run

# one xdist group: the tests make and remove the same accounts
pytestmark = [pytest.mark.skipif(os.geteuid() != 0, reason="needs root: makes Unix accounts"),
              pytest.mark.xdist_group("hub_exchange")]

ADA, BEN, CY = "hubx-ada", "hubx-ben", "hubx-cy"
A = "00_getting_started"
NB = f"{A}.ipynb"


@pytest.fixture
def accounts():
    created = run.ensure_accounts([ADA, BEN, CY])
    try:
        yield {name: pwd.getpwnam(name).pw_uid for name in (ADA, BEN, CY)}
    finally:
        run.remove_accounts(created)


@pytest.fixture
def base():
    """A scratch folder every account can pass through (pytest's own are root's alone)."""
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="hubx-"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def course(base):
    c = base / "course"
    shutil.copytree(SOLUTIONS / A, c / "solutions" / A)
    (c / "grading").mkdir()
    return c


def as_user(name: str, *argv: str) -> subprocess.CompletedProcess:
    """``argv`` run as the account ``name`` (its own uid and groups, no capability)."""
    entry = pwd.getpwnam(name)
    return subprocess.run(["setpriv", f"--reuid={entry.pw_uid}", f"--regid={entry.pw_gid}",
                           "--init-groups", "--inh-caps=-all", *argv],
                          capture_output=True, text=True, cwd="/", timeout=60)


def hand_in(inbound, student: str, stamp: str, owner: int, text: str) -> os.PathLike:
    folder = inbound / f"{student}+{A}+2026-11-27 {stamp}.000000 UTC+{stamp.replace(':', '')}"
    folder.mkdir()
    (folder / NB).write_text(text)
    for path in (folder, folder / NB):
        os.chown(path, owner, owner)
    return folder


def test_collect_reads_only_what_each_student_owns(course, base, accounts):
    """A name claiming a classmate, a hand-in folder that is a link, links inside a hand-in
    (to the solutions, to a classmate's file, a hard link) and a file a classmate wrote into
    an open hand-in: none of it is collected (nbgrader's collect followed both links, and
    each scored full marks for work that was not theirs)."""
    ex = base / "exchange"
    exchange.prepare_exchange(ex, course)
    inbound = ex / "fast-dl" / "inbound"
    ben = hand_in(inbound, BEN, "10:00:00", accounts[BEN], "ben's own work")
    hand_in(inbound, BEN, "11:00:00", accounts[ADA], "ada's forgery")       # the latest name
    ada = hand_in(inbound, ADA, "10:30:00", accounts[ADA], "ada's own work")
    os.symlink(course / "solutions" / A / NB, ada / "solution.ipynb")
    os.symlink(ben / NB, ada / "bens.ipynb")
    (ben / "notes.txt").write_text("ben's notes")
    os.chown(ben / "notes.txt", accounts[BEN], accounts[BEN])
    os.link(ben / "notes.txt", ada / "bens-hard.txt")
    os.chmod(ben, 0o777)   # as nbgrader's submit leaves a hand-in folder
    (ben / "planted.py").write_text("by ada")
    os.chown(ben / "planted.py", accounts[ADA], accounts[ADA])
    os.symlink(course / "solutions" / A, inbound / f"{CY}+{A}+2026-11-27 12:00:00.000000 UTC+x")

    dest = exchange.collect(course, A, ex)

    got = {p.relative_to(dest).as_posix(): p.read_text() for p in dest.rglob("*")
           if p.is_file()}
    assert got == {f"{BEN}/{A}/{NB}": "ben's own work", f"{BEN}/{A}/notes.txt": "ben's notes",
                   f"{ADA}/{A}/{NB}": "ada's own work"}, got


def test_a_student_cannot_rename_another_students_hand_in(course, base, accounts):
    """inbound is sticky: ada cannot move ben's hand-in out of the way or take its name
    (without it she renamed hers to ben's name between nbgrader's check and its copy)."""
    ex = base / "exchange"
    exchange.prepare_exchange(ex, course)
    inbound = ex / "fast-dl" / "inbound"
    ben = hand_in(inbound, BEN, "10:00:00", accounts[BEN], "ben's own work")
    got = as_user(ADA, sys.executable, "-c", f"import os; os.rename({str(ben)!r}, "
                  f"{str(inbound / 'gone')!r})")
    assert got.returncode != 0 and "PermissionError" in got.stderr, got.stderr
    assert ben.is_dir()


def test_a_folder_a_student_made_first_does_not_block_the_release(course, base, accounts):
    """The course's folder in the exchange, made by a student before the first release,
    is moved aside and made again by root (nbgrader's release stopped: 'You don't own the
    directory')."""
    ex = base / "exchange"
    ex.mkdir()
    os.chmod(ex, 0o1777)
    got = as_user(ADA, "mkdir", "-p", str(ex / "fast-dl" / "outbound"))
    assert got.returncode == 0, got.stderr
    exchange.release(course, A, ex)
    top = ex / "fast-dl"
    assert top.stat().st_uid == 0 and (top / "outbound" / A / NB).is_file()
    assert (top / "inbound").stat().st_mode & 0o7777 == 0o3733
    assert [p for p in ex.iterdir() if p.name.startswith(".set-aside-fast-dl")]


def test_one_exchange_serves_one_course(course, base):
    """A second course folder (another checkout, a test run) on the same exchange is refused
    with the fix named, instead of mixing its hand-ins into this course's collect."""
    ex = base / "exchange"
    exchange.prepare_exchange(ex, course)
    other = base / "other-course"
    other.mkdir()
    with pytest.raises(exchange.ExchangeError, match="serves the course at .*--exchange"):
        exchange.prepare_exchange(ex, other)
    exchange.prepare_exchange(ex, course)   # the same course again: fine
