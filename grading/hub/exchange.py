"""The instructor's side of nbgrader's exchange on the course hub, around make autograde.

    python grading/hub/exchange.py release  ASSIGNMENT   # solutions/<a>/, generated -> the exchange
    python grading/hub/exchange.py collect  ASSIGNMENT   # the exchange -> grading/hub/collected/
    make autograde ASSIGNMENT=... SUBMISSIONS=grading/hub/collected
    python grading/hub/exchange.py feedback ASSIGNMENT   # grading/feedback/ -> the exchange

    [--course ROOT] [--exchange /srv/nbgrader/exchange (or COURSE_EXCHANGE, HUB_EXCHANGE)]

Each step is nbgrader's own command (release_assignment, collect, release_feedback) run
with the course's configuration on the hub's exchange. ``release`` generates the learner
version from solutions/ in a scratch folder (as make release does) and releases that: never
a folder somebody edits, such as notebooks/ after a learner answered in it. Run as root on
the hub's machine, ``collect`` and ``feedback`` give what they wrote (and what make
autograde wrote before) back to the instructor's group (grading/hub/run.py's permissions). Collected hand-ins go to a folder of their own, which
make autograde then imports like any other folder of submissions; ``feedback`` puts back,
beside each student's feedback, the submission's timestamp and secret that nbgrader's
release_feedback needs to address the feedback to that hand-in (the course's grading
imports notebooks, not those two files).
"""

from __future__ import annotations

import argparse
import grp
import os
import pwd
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from grading.course import LAYOUT, REPO  # noqa: E402
from grading.course import nbgrader as _nbgrader  # noqa: E402
from grading.workcopy import learner_version  # noqa: E402

EXCHANGE = Path(os.environ.get("COURSE_EXCHANGE") or os.environ.get("HUB_EXCHANGE")
                or "/srv/nbgrader/exchange")

COLLECTED = Path("grading") / "hub" / "collected"
RECEIPTS = ("timestamp.txt", "submission_secret.txt")


class ExchangeError(RuntimeError):
    """A step cannot run; the message names the fix."""


def nbgrader(*args: str, root: Path, exchange: Path = EXCHANGE, **kw):
    """nbgrader with the course's config, on the hub's exchange."""
    return _nbgrader(*args, f"--Exchange.root={exchange}", root=root, **kw)


def regroup(course: Path) -> None:
    """What root wrote in a hub course given back to the instructor's group (make hub set
    the course's group; nothing to do on a course that is not a hub's)."""
    gid = course.stat().st_gid
    if os.geteuid() != 0 or gid == 0:
        return
    from grading.hub.run import secure_course
    secure_course(course, grp.getgrgid(gid).gr_name)


def _check(course: Path, assignment: str) -> None:
    if not (course / "solutions" / assignment).is_dir():
        known = sorted(p.name for p in (course / "solutions").iterdir() if p.is_dir()) \
            if (course / "solutions").is_dir() else []
        raise ExchangeError(f"unknown assignment {assignment!r}: solutions/ holds "
                            f"{', '.join(known) or 'none'}; pass one of those")


def release(course: Path, assignment: str, exchange: Path = EXCHANGE) -> str:
    """nbgrader release_assignment of the learner version generated from solutions/."""
    _check(course, assignment)
    with tempfile.TemporaryDirectory(prefix="hub-release-") as tmp:
        out = learner_version(course / "solutions", assignment, Path(tmp))
        p = nbgrader("release_assignment", assignment, "--force",
                     f"--CourseDirectory.release_directory={out.parent}", root=course,
                     exchange=exchange, check=False)
    if p.returncode:
        raise ExchangeError(f"nbgrader release_assignment failed: {_last(p)}")
    return p.stderr


def set_aside_forged(exchange: Path, assignment: str,
                     course_id: str = LAYOUT["course_id"]) -> list[str]:
    """Hand-ins in the exchange's inbound folder that name a student with an account but are
    owned by another account (inbound lets any student create a folder under any name, and
    nbgrader's collect trusts the name): moved to inbound-set-aside/, never collected.
    Returns a line for each, naming the hand-in, the student it claims and its owner."""
    inbound = exchange / course_id / "inbound"
    if not inbound.is_dir():
        return []
    aside = exchange / course_id / "inbound-set-aside"
    found = []
    for entry in sorted(inbound.iterdir()):
        parts = entry.name.split("+")
        if len(parts) < 3 or parts[1] != assignment:
            continue
        student = parts[0]
        try:
            claimed = pwd.getpwnam(student).pw_uid
        except KeyError:
            continue  # not an account on this machine: nothing to check it against
        owner = entry.lstat().st_uid
        if owner != claimed or entry.is_symlink():
            try:
                by = pwd.getpwuid(owner).pw_name
            except KeyError:
                by = f"uid {owner}"
            aside.mkdir(mode=0o700, exist_ok=True)
            entry.rename(aside / entry.name)
            found.append(f"{entry.name}: claims to be {student}'s hand-in but belongs to {by}; "
                         f"set aside in {aside}, not collected")
    return found


def collect(course: Path, assignment: str, exchange: Path = EXCHANGE) -> Path:
    """nbgrader collect, into grading/hub/collected/<student>/<assignment>/ (latest hand-in),
    after setting aside hand-ins whose owner is not the student they name."""
    _check(course, assignment)
    for line in set_aside_forged(exchange, assignment):
        print(f"warning: {line}", file=sys.stderr)
    dest = course / COLLECTED
    p = nbgrader("collect", assignment, "--update",
                 f"--CourseDirectory.submitted_directory={dest}", root=course,
                 exchange=exchange, check=False)
    if p.returncode:
        raise ExchangeError(f"nbgrader collect failed: {_last(p)}")
    regroup(course)
    return dest


def feedback(course: Path, assignment: str, collected: Path | None = None,
             exchange: Path = EXCHANGE) -> list[str]:
    """nbgrader release_feedback for every collected student with feedback; returns them."""
    _check(course, assignment)
    collected = collected or course / COLLECTED
    released = []
    for sdir in sorted(p for p in collected.glob("*") if (p / assignment).is_dir()):
        fb = course / "grading" / "feedback" / sdir.name / assignment
        if not any(fb.glob("*.html")) or not all((sdir / assignment / n).is_file()
                                                   for n in RECEIPTS):
            continue
        for name in RECEIPTS:
            shutil.copyfile(sdir / assignment / name, fb / name)
        released.append(sdir.name)
    if not released:
        raise ExchangeError(f"no feedback to release for {assignment}: run 'collect', then "
                            f"make autograde ASSIGNMENT={assignment} SUBMISSIONS={COLLECTED}")
    # students graded from elsewhere (an LMS zip) have no hand-in in the exchange to answer
    others = sorted(p.parent.name for p in (course / "grading" / "feedback").glob(f"*/{assignment}")
                    if p.parent.name not in released)
    args = [f"--CourseDirectory.student_id_exclude={','.join(others)}"] if others else []
    p = nbgrader("release_feedback", assignment, *args, root=course, exchange=exchange,
                 check=False)
    if p.returncode:
        raise ExchangeError(f"nbgrader release_feedback failed: {_last(p)}")
    regroup(course)
    return released


def _last(proc) -> str:
    lines = (proc.stderr + proc.stdout).strip().splitlines()
    return lines[-1] if lines else f"exit {proc.returncode}"


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("step", choices=["release", "collect", "feedback"])
    p.add_argument("assignment")
    p.add_argument("--course", type=Path, default=Path(os.environ.get("COURSE_ROOT") or REPO))
    p.add_argument("--exchange", type=Path, default=EXCHANGE,
                   help="nbgrader's exchange (the hub's: make hub's --exchange)")
    args = p.parse_args(argv)
    course, exchange = args.course.resolve(), args.exchange.resolve()
    try:
        if not exchange.is_dir():
            raise ExchangeError(f"no exchange at {exchange}: start the hub first (make hub "
                                "makes it), or pass the hub's --exchange")
        if args.step == "release":
            release(course, args.assignment, exchange)
            print(f"released {args.assignment} to {exchange}")
        elif args.step == "collect":
            dest = collect(course, args.assignment, exchange)
            got = sorted(Path(d).parent.name for d in dest.glob(f"*/{args.assignment}"))
            print(f"collected {len(got)} hand-in(s) into {dest}: {', '.join(got) or 'none'}\n"
                  f"next: make autograde ASSIGNMENT={args.assignment} SUBMISSIONS={dest}")
        else:
            who = feedback(course, args.assignment, exchange=exchange)
            print(f"feedback released for {', '.join(who)}: students fetch it from the "
                  "Assignment List (Fetch Feedback)")
    except ExchangeError as exc:
        print(f"exchange: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
