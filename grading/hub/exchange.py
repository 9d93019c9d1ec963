"""The instructor's side of nbgrader's exchange on the course hub, around make autograde.

    python grading/hub/exchange.py release  ASSIGNMENT   # solutions/<a>/, generated -> the exchange
    python grading/hub/exchange.py collect  ASSIGNMENT   # the exchange -> grading/hub/collected/
    make autograde ASSIGNMENT=... SUBMISSIONS=grading/hub/collected
    python grading/hub/exchange.py feedback ASSIGNMENT   # grading/feedback/ -> the exchange

    [--course ROOT] [--exchange /srv/nbgrader/fast-dl (or COURSE_EXCHANGE, HUB_EXCHANGE)]

``release`` and ``feedback`` are nbgrader's own commands (release_assignment,
release_feedback) run with the course's configuration on the hub's exchange; ``release``
generates the learner version from solutions/ in a scratch folder (as make release does)
and releases that: never a folder somebody edits, such as notebooks/ after a learner
answered in it. ``collect`` is the course's own: nbgrader's trusts a hand-in's name and
follows links, so a student could hand in the solutions or a classmate's notebook under
their own name, or rename their hand-in to a classmate's between the owner check and the
copy. Here each hand-in is opened without following links, checked by its owner on what
was opened, and read from there into a root-owned staging folder, which make autograde
then imports like any other folder of submissions (``read_inbound``). Every step first
makes sure of the exchange (``prepare_exchange``): one exchange root per course, the
course's folders root's before any student can make them, inbound sticky. Run as root on
the hub's machine, ``collect`` and ``feedback`` give what they wrote (and what make
autograde wrote before) back to the instructor's group (grading/hub/run.py's
permissions); ``feedback`` puts back, beside each student's feedback, the submission's
timestamp and secret that nbgrader's release_feedback needs to address the feedback to
that hand-in (the course's grading imports notebooks, not those two files).
"""

from __future__ import annotations

import argparse
import grp
import os
import pwd
import shutil
import stat
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from grading.course import LAYOUT, REPO  # noqa: E402
from grading.course import nbgrader as _nbgrader  # noqa: E402
from grading.tools.workcopy import learner_version  # noqa: E402

EXCHANGE = Path(os.environ.get("COURSE_EXCHANGE") or os.environ.get("HUB_EXCHANGE")
                or f"/srv/nbgrader/{LAYOUT['course_id']}")

COLLECTED = Path("grading") / "hub" / "collected"
RECEIPTS = ("timestamp.txt", "submission_secret.txt")
OWNER_MARK = ".course-folder"       # in the exchange root: the one course folder it serves
# the course's folders in the exchange, made by root before any student can make them:
# inbound lets a student drop a hand-in but neither list nor rename another's (sticky),
# outbound is read by all, feedback passed through by the name only a hand-in's secret gives
COURSE_FOLDERS = {"": 0o755, "inbound": 0o3733, "outbound": 0o755, "feedback": 0o711}
MAX_HAND_IN_BYTES = 256 << 20
MAX_HAND_IN_FILES = 1000


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


def _set_aside(parent: Path, name: str, why: str) -> str:
    """``parent/name`` renamed out of the way (as root: the sticky bit does not stop it)."""
    dest = parent / f".set-aside-{name}-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}"
    os.rename(parent / name, dest)
    return f"{parent / name} {why}: moved to {dest}"


def prepare_exchange(exchange: Path, course: Path,
                     course_id: str = LAYOUT["course_id"]) -> list[str]:
    """The exchange root of one course, ready before any student can touch it: the root
    world-writable with the sticky bit (nbgrader's students write their caches' peers there
    and check it), the course's folders made by root with the modes of ``COURSE_FOLDERS``
    (a folder of that name a student made first is moved aside: 'You don't own the
    directory' stopped every release), and a mark naming the one course folder this exchange
    serves (a second course, or a test run, on the same exchange is refused). Idempotent;
    returns a warning line for each thing it moved aside."""
    if os.geteuid() != 0:
        raise ExchangeError("the hub's exchange is set up by root (its folders must not be "
                            "anybody's who could replace them): run as root")
    warnings = []
    for parent in reversed(exchange.parents):
        if not parent.exists():
            parent.mkdir()
            parent.chmod(0o755)
    exchange.mkdir(exist_ok=True)
    st = exchange.lstat()
    if stat.S_ISLNK(st.st_mode) or st.st_uid != 0:
        raise ExchangeError(f"{exchange} is not a folder of root's (owner uid {st.st_uid}): "
                            "remove it, or pass another --exchange")
    exchange.chmod(0o1777)
    mark = exchange / OWNER_MARK
    try:
        fd = os.open(mark, os.O_RDONLY | os.O_NOFOLLOW)
        with os.fdopen(fd) as f:
            owner_ok = os.fstat(f.fileno()).st_uid == 0
            served = f.read().strip()
    except FileNotFoundError:
        owner_ok, served = True, ""
    except OSError:   # a link, or not a file: not root's word
        owner_ok, served = False, ""
    if not owner_ok:
        warnings.append(_set_aside(exchange, OWNER_MARK, "was not root's"))
        served = ""
    if served and Path(served) != course and Path(served).is_dir():
        raise ExchangeError(f"the exchange {exchange} serves the course at {served}, not "
                            f"{course}: give each course an exchange of its own (--exchange "
                            f"/srv/nbgrader/<another name>, HUB_EXCHANGE=)")
    if served != str(course):
        part = exchange / f".{OWNER_MARK}.{os.getpid()}"
        part.unlink(missing_ok=True)
        fd = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
        with os.fdopen(fd, "w") as f:
            f.write(f"{course}\n")
        os.replace(part, mark)
    top = exchange / course_id
    for sub, mode in COURSE_FOLDERS.items():
        path = top / sub if sub else top
        try:
            st = path.lstat()
            if stat.S_ISLNK(st.st_mode) or not stat.S_ISDIR(st.st_mode) or st.st_uid != 0:
                warnings.append(_set_aside(path.parent, path.name,
                                           f"was made by uid {st.st_uid}, not root"))
                raise FileNotFoundError
        except FileNotFoundError:
            path.mkdir()
        os.chown(path, 0, 0 if not sub else -1)
        path.chmod(mode)
    return warnings


def release(course: Path, assignment: str, exchange: Path = EXCHANGE) -> str:
    """nbgrader release_assignment of the learner version generated from solutions/."""
    _check(course, assignment)
    for line in prepare_exchange(exchange, course):
        print(f"warning: {line}", file=sys.stderr)
    with tempfile.TemporaryDirectory(prefix="hub-release-") as tmp:
        out = learner_version(course / "solutions", assignment, Path(tmp))
        p = nbgrader("release_assignment", assignment, "--force",
                     f"--CourseDirectory.release_directory={out.parent}", root=course,
                     exchange=exchange, check=False)
    if p.returncode:
        raise ExchangeError(f"nbgrader release_assignment failed: {_last(p)}")
    return p.stderr


# ---------------------------------------------------------------- collect

def _open_in(dirfd: int, name: str, directory: bool = False) -> int:
    """``name`` in the folder ``dirfd`` opened without following a link (O_NOFOLLOW: a
    symbolic link fails with ELOOP), for what it is when it is opened."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | (os.O_DIRECTORY if directory else 0)
    return os.open(name, flags, dir_fd=dirfd)


def _read_tree(fd: int, uid: int, where: str, budget: list[int], depth: int = 0
               ) -> tuple[dict[str, bytes], list[str]]:
    """The regular files under the open folder ``fd`` that ``uid`` owns, each read through a
    descriptor opened without following links and checked there (its owner, a regular
    file: a hard link to anybody else's file is theirs), so a name swapped after a check
    reads nothing else. Returns the files
    and a line for each thing left out."""
    files, skipped = {}, []
    for name in sorted(os.listdir(fd)):
        if name in (".", "..") or "/" in name:
            continue
        try:
            sub = _open_in(fd, name)
        except OSError as exc:   # ELOOP: a symbolic link; EACCES, ENXIO: not for us
            skipped.append(f"{where}/{name}: not read ({os.strerror(exc.errno)}: "
                           "a link or not a regular file)")
            continue
        try:
            st = os.fstat(sub)
            if st.st_uid != uid:
                skipped.append(f"{where}/{name}: belongs to uid {st.st_uid}, not the student")
            elif stat.S_ISDIR(st.st_mode) and depth < 4:
                more, why = _read_tree(sub, uid, f"{where}/{name}", budget, depth + 1)
                files.update({f"{name}/{k}": v for k, v in more.items()})
                skipped += why
            elif not stat.S_ISREG(st.st_mode):
                skipped.append(f"{where}/{name}: not a regular file")
            elif st.st_size > budget[0] or budget[1] <= 0:
                skipped.append(f"{where}/{name}: over the hand-in's size or file budget")
            else:
                chunks, left = [], st.st_size
                while left > 0:
                    chunk = os.read(sub, min(left, 1 << 20))
                    if not chunk:
                        break
                    chunks.append(chunk)
                    left -= len(chunk)
                files[name] = b"".join(chunks)
                budget[0] -= len(files[name])
                budget[1] -= 1
        finally:
            os.close(sub)
    return files, skipped


def read_inbound(exchange: Path, assignment: str, course_id: str = LAYOUT["course_id"]
                 ) -> tuple[dict[str, dict[str, bytes]], list[str]]:
    """Each student's latest hand-in of ``assignment`` in the exchange's inbound folder, as
    {student: {relative path: bytes}}, read only from what that student's account owns, and
    a line for everything left out. A hand-in is opened by name without following links,
    and its owner is checked on the opened folder itself: a name that claims another
    student, a link (to solutions/, to a classmate's file), or a folder renamed between the
    listing and the reading gives nothing."""
    inbound = exchange / course_id / "inbound"
    try:
        top = os.open(inbound, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except OSError as exc:
        raise ExchangeError(f"no inbound folder at {inbound} ({os.strerror(exc.errno)}): "
                            "release an assignment first (it makes the exchange)") from None
    problems: list[str] = []
    chosen: dict[str, tuple[str, int]] = {}   # student -> (timestamp text, open folder)
    try:
        st = os.fstat(top)
        if st.st_uid != 0 or st.st_mode & 0o1000 == 0:
            raise ExchangeError(f"{inbound} is not root's with the sticky bit: run the "
                                "hub's set-up again (make hub) before collecting")
        for name in sorted(os.listdir(top)):
            parts = name.split("+")
            if len(parts) < 3 or parts[1] != assignment:
                continue
            student = parts[0]
            try:
                uid = pwd.getpwnam(student).pw_uid
            except KeyError:
                problems.append(f"{name}: no account {student!r} on this machine; not collected")
                continue
            try:
                fd = _open_in(top, name, directory=True)
            except OSError as exc:
                problems.append(f"{name}: not collected ({os.strerror(exc.errno)}: a link or "
                                "not a folder)")
                continue
            owner = os.fstat(fd).st_uid
            if owner != uid:
                os.close(fd)
                try:
                    by = pwd.getpwuid(owner).pw_name
                except KeyError:
                    by = f"uid {owner}"
                problems.append(f"{name}: claims to be {student}'s hand-in but belongs to "
                                f"{by}; not collected")
                continue
            stamp = parts[2]
            old = chosen.get(student)
            if old is None or _when(stamp) > _when(old[0]):
                if old is not None:
                    os.close(old[1])
                chosen[student] = (stamp, fd)
            else:
                os.close(fd)
        out = {}
        for student, (stamp, fd) in sorted(chosen.items()):
            files, skipped = _read_tree(fd, pwd.getpwnam(student).pw_uid, student,
                                        [MAX_HAND_IN_BYTES, MAX_HAND_IN_FILES])
            problems += skipped
            out[student] = files
        return out, problems
    finally:
        for _, fd in chosen.values():
            try:
                os.close(fd)
            except OSError:
                pass
        os.close(top)


def _when(stamp: str):
    from nbgrader.utils import parse_utc

    try:
        return parse_utc(stamp)
    except (ValueError, TypeError, OverflowError):
        return parse_utc("1970-01-01 00:00:00 UTC")


def collect(course: Path, assignment: str, exchange: Path = EXCHANGE) -> Path:
    """Each student's latest hand-in, read only from what the student owns
    (``read_inbound``), copied into grading/hub/collected/<student>/<assignment>/ (the
    course's, root-owned staging folder make autograde imports), replacing what was there."""
    _check(course, assignment)
    for line in prepare_exchange(exchange, course):
        print(f"warning: {line}", file=sys.stderr)
    hand_ins, problems = read_inbound(exchange, assignment)
    for line in problems:
        print(f"warning: {line}", file=sys.stderr)
    dest = course / COLLECTED
    dest.mkdir(parents=True, exist_ok=True)
    from grading.batch.cluster import safe_name
    from grading.batch.submissions import write_files

    for student, files in hand_ins.items():   # names from directory listings: no '/', '..'
        write_files(files, dest / safe_name(student) / assignment)
    regroup(course)
    return dest


def feedback(course: Path, assignment: str, collected: Path | None = None,
             exchange: Path = EXCHANGE) -> list[str]:
    """nbgrader release_feedback for every collected student with feedback; returns them."""
    _check(course, assignment)
    collected = collected or course / COLLECTED
    for line in prepare_exchange(exchange, course):
        print(f"warning: {line}", file=sys.stderr)
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
