"""Grade a whole class in one command: import, autograde in parallel, feedback, reports.

    python grading/batch/autograde.py ASSIGNMENT SUBMISSIONS [--jobs N] [--hidden hide|show]
                                [--pattern REGEX] [--course ROOT] [--scheduler tcp://host:8786]
    make autograde ASSIGNMENT=00_getting_started SUBMISSIONS=~/Downloads/class.zip

1. Imports SUBMISSIONS (a folder or an LMS zip, see grading/batch/submissions.py) into
   grading/submitted/<student>/<assignment>/; unchanged submissions are left as they are.
2. Grades every new or changed submission on a Dask cluster (grading/batch/cluster.py): a local
   one with N workers (default: one per core), or an existing one (--scheduler). Each job
   carries the submission's files in and its grades and files out as plain data; each
   grading process owns a scratch course and gradebook; this process alone writes the
   course gradebook (grading/gradebook.db, nbgrader's own), one transaction per student,
   so no grade is lost or mixed up. A submission that runs longer than its limit has its
   grading process's whole tree killed and is reported; the batch goes on. A Dask worker
   lost mid-run loses no grade: its jobs are graded again elsewhere, and the notes say so.
3. Copies autograded notebooks and per-student HTML feedback into grading/autograded/ and
   grading/feedback/ (hidden tests' code hidden unless --hidden show).
4. Writes grading/grades.csv (``nbgrader export``), grading/reports/<assignment>/
   grades.csv, items.csv and items.png (per test cell: full/partial/no credit), and
   prints a summary table.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from grading.course import REPO, assignments, clean_notebook, write_notebook  # noqa: E402
from grading.batch.gradebook import (course_db_url, gradebook_lock, merge_result, seed_note,  # noqa: E402
                               read_gradebook)
from grading.batch.reports import (export_csv, item_report, num, plot_items, table,  # noqa: E402
                             write_csv)
from grading.batch.submissions import (Imported, SubmissionsError,  # noqa: E402
                                       read_submissions, write_files)

STATE_VERSION = 1


class UsageError(ValueError):
    """Bad arguments; the message names the problem and the fix."""


@dataclass
class Options:
    assignment: str
    submissions: Path
    course: Path = REPO
    jobs: int = 0
    hidden: str = "hide"
    pattern: str | None = None
    cell_timeout: int | None = None
    quiet: bool = False
    export: bool = True
    sandbox: str = "on"
    db_url: str | None = None
    scheduler: str | None = None
    regrade: str = ""    # "all", or students' ids separated by commas: graded again anyway


@dataclass
class Outcome:
    """What a run did: who was graded, who was left as it was, and every problem seen."""

    graded: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    problems: dict[str, list[str]] = field(default_factory=dict)
    grader_errors: dict[str, str] = field(default_factory=dict)   # not graded: the grader's
    notes: dict[str, list[str]] = field(default_factory=dict)   # graded, with a reason to see
    rows: list[dict] = field(default_factory=list)
    items: list[dict] = field(default_factory=list)
    reports: Path | None = None
    seconds: float = 0.0
    cluster: list[str] = field(default_factory=list)
    grade_seconds: list[float] = field(default_factory=list)  # in the grading processes
    merge_seconds: list[float] = field(default_factory=list)  # here, per result


# ---------------------------------------------------------------- the course and its state

def _tree_digest(folder: Path) -> str:
    h = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        rel = path.relative_to(folder).as_posix()
        if ".ipynb_checkpoints" in rel or "__pycache__" in rel:
            continue
        h.update(rel.encode() + b"\0" + hashlib.sha256(path.read_bytes()).digest())
    return h.hexdigest()


def _files_digest(files: dict[str, bytes]) -> str:
    h = hashlib.sha256()
    for name in sorted(files):
        h.update(name.encode() + b"\0" + hashlib.sha256(files[name]).digest())
    return h.hexdigest()


def _read_files(folder: Path) -> dict[str, bytes]:
    if not folder.is_dir():
        return {}
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in folder.rglob("*") if p.is_file()}


def _write_json(path: Path, data) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(json.dumps(data, indent=1, sort_keys=True))
    os.replace(tmp, path)


def prepare_template(opts: Options, workdir: Path) -> Path:
    """A scratch course holding the assignment, generated, with a gradebook of its own.

    Also (re)registers the assignment in the course gradebook, without touching the
    course's notebooks/ (generate_assignment runs in the scratch copy).
    """
    template = workdir / "template"
    shutil.copytree(opts.course / "solutions" / opts.assignment,
                    template / "solutions" / opts.assignment,
                    ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__"))
    (template / "grading").mkdir(parents=True)
    (opts.course / "grading").mkdir(parents=True, exist_ok=True)
    # generate_assignment in this process (nbgrader is imported once): first into the
    # course gradebook, then into the template's own.
    from nbgrader.apps import NbGraderAPI

    from grading.batch.grade_worker import load_config

    saved = os.environ.get("COURSE_ROOT")
    try:
        api = NbGraderAPI(config=load_config(template, opts.hidden))
    finally:
        if saved is None:
            os.environ.pop("COURSE_ROOT", None)
        else:
            os.environ["COURSE_ROOT"] = saved
    for db_url in (opts.db_url or course_db_url(opts.course),
                   f"sqlite:///{template / 'grading' / 'gradebook.db'}"):
        api.coursedir.db_url = db_url
        with warnings.catch_warnings(), gradebook_lock(db_url):
            warnings.simplefilter("ignore")
            res = api.generate_assignment(opts.assignment, force=True, create=True)
        if not res.get("success"):
            raise RuntimeError(f"nbgrader generate_assignment {opts.assignment} failed:\n"
                               f"{res.get('log', '')[-3000:]}\n{res.get('error', '')[-2000:]}")
    import nbformat

    for path in (template / "notebooks" / opts.assignment).glob("*.ipynb"):
        write_notebook(clean_notebook(nbformat.read(path, as_version=4)), path)
    return template


# ---------------------------------------------------------------- grading on a Dask cluster
# Every submission is one Dask task (grading/batch/cluster.py): its files go in as bytes, its
# grades, notes and files come back as plain data, and only on_result (in autograde, in
# this process) writes the gradebook and the course's folders. A local cluster (one worker
# per core) unless opts.scheduler names an existing one.

from grading.batch.cluster import ClusterError  # noqa: E402


def submission_limit(opts: Options, template: Path) -> float:
    """Wall-clock seconds one submission may take: every code cell at its limit, plus margin."""
    import nbformat

    cells = 0
    for path in (template / "notebooks" / opts.assignment).glob("*.ipynb"):
        cells += sum(c.cell_type == "code" for c in nbformat.read(path, as_version=4).cells)
    per_cell = opts.cell_timeout or int(os.environ.get("COURSE_CELL_TIMEOUT", "120"))
    return per_cell * (cells + 2) + 60


def _write_tree(files: dict[str, bytes], dest: Path) -> None:
    """Replace ``dest`` by exactly ``files`` (names checked) in one rename, or remove it if
    there are none."""
    from grading.batch.cluster import write_tree

    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(f".{dest.name}.tmp")
    old = dest.with_name(f".{dest.name}.old")
    shutil.rmtree(tmp, ignore_errors=True)
    shutil.rmtree(old, ignore_errors=True)
    if files:
        write_tree(files, tmp)
    if dest.exists():
        dest.rename(old)
    if tmp.exists():
        tmp.rename(dest)
    shutil.rmtree(old, ignore_errors=True)


# ---------------------------------------------------------------- the command

def check_options(opts: Options) -> None:
    if not opts.assignment:
        raise UsageError("no ASSIGNMENT given; run e.g. make autograde "
                         "ASSIGNMENT=00_getting_started SUBMISSIONS=path/to/folder-or.zip")
    known = assignments(opts.course / "solutions")
    if opts.assignment not in known:
        raise UsageError(f"unknown assignment {opts.assignment!r}: solutions/ holds "
                         f"{', '.join(known) or 'none'}; pass one of those as ASSIGNMENT=")
    if not opts.submissions or str(opts.submissions) in ("", "."):
        raise UsageError("no SUBMISSIONS given; pass the folder of submissions "
                         "(<student>/<assignment>/<notebook>.ipynb) or your LMS's zip: "
                         "make autograde ASSIGNMENT=... SUBMISSIONS=path")
    if not Path(opts.submissions).exists():
        raise UsageError(f"SUBMISSIONS={opts.submissions}: no such folder or zip; pass the "
                         "folder of submissions or the zip your LMS exported")
    if opts.hidden not in ("hide", "show"):
        raise UsageError(f"HIDDEN={opts.hidden!r}: use HIDDEN=hide (default) or HIDDEN=show")
    if opts.sandbox not in ("on", "off"):
        raise UsageError(f"SANDBOX={opts.sandbox!r}: use SANDBOX=on (default) or SANDBOX=off")
    if opts.scheduler is not None and "://" not in opts.scheduler:
        raise UsageError(f"SCHEDULER={opts.scheduler!r}: write the Dask scheduler's address as "
                         "tcp://host:8786, or leave SCHEDULER unset to grade on this machine")
    if opts.sandbox == "on" and not opts.scheduler:  # a cluster's workers check their own
        from grading.trusted.sandbox import unavailable

        why = unavailable()
        if why:
            raise UsageError(f"no sandbox for students' code: {why}. To grade anyway, with "
                             "students' code able to read and change what this user can, pass "
                             "SANDBOX=off; every grade is then marked unsandboxed")


@dataclass
class Intake:
    """The import stage's result: what to grade, what to leave as it is, and why."""

    todo: list[tuple[str, Imported, str]] = field(default_factory=list)  # (id, files, digest)
    unchanged: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)   # the SUBMISSIONS input's, no student's
    imported_at: dict[str, str] = field(default_factory=dict)   # when each content came in


def start_run(opts: Options) -> str:
    """Say which limits this machine lets the sandbox set, draw the run's seed of the hidden
    tests' generated inputs (unless one is set), and put this environment's bin/ on PATH
    (nbgrader runs 'alembic' for a new gradebook, and kernels, from it). The seed's line."""
    if opts.sandbox == "on" and not opts.scheduler:  # which limits this machine lets us set
        from grading.trusted.judge import judge_limits_note
        from grading.trusted.limits import limits_note

        print("\n".join([*limits_note(), judge_limits_note()]), flush=True)
    from labkit.judge.reset import SEED_ENV

    if not os.environ.get(SEED_ENV, "").isdigit():  # one seed for the run's generated inputs
        os.environ[SEED_ENV] = str(int.from_bytes(os.urandom(4), "big"))
    seed_line = seed_note(os.environ[SEED_ENV])
    if not opts.quiet:
        print(seed_line, flush=True)
    bindir = str(Path(sys.executable).parent)
    if bindir not in os.environ.get("PATH", "").split(os.pathsep):
        os.environ["PATH"] = os.pathsep.join([bindir, os.environ.get("PATH", "")])
    return seed_line


def read_state(state_path: Path) -> dict:
    """The last runs' record of every student (state.json), or a fresh one."""
    try:
        state = json.loads(state_path.read_text())
        if state.get("version") != STATE_VERSION:
            state = {}
    except (OSError, ValueError):
        state = {}
    state.setdefault("version", STATE_VERSION)
    state.setdefault("students", {})
    return state


def _graded_before(db_url: str, a: str) -> set[str]:
    """The students the course gradebook holds a submission of ``a`` for."""
    from nbgrader.api import Gradebook, MissingEntry

    if db_url.startswith("sqlite:///") and not Path(db_url[10:]).exists():
        return set()
    try:
        with gradebook_lock(db_url), Gradebook(db_url) as gb:
            return {s.student.id for s in gb.find_assignment(a).submissions}
    except MissingEntry:
        return set()


def import_class(opts: Options, state: dict, db_url: str) -> Intake:
    """Import SUBMISSIONS: write each student's folder in grading/submitted/ only if its
    content changed, and list who needs grading (new or changed content, a changed
    assignment or grading option, REGRADE) and who is left as it is."""
    a, course = opts.assignment, opts.course
    expected = sorted(p.name for p in (course / "solutions" / a).glob("*.ipynb"))
    students, problems = read_submissions(Path(opts.submissions), a, expected, opts.pattern)
    intake = Intake(problems=list(problems))
    key = hashlib.sha256((_tree_digest(course / "solutions" / a) + opts.hidden + opts.sandbox
                          + str(opts.cell_timeout or os.environ.get("COURSE_CELL_TIMEOUT", ""))
                          ).encode()).hexdigest()
    submitted = course / "grading" / "submitted"
    graded_before = _graded_before(db_url, a)
    regrade = {s.strip() for s in opts.regrade.split(",") if s.strip()}
    unknown = sorted(regrade - set(students) - {"all"})
    if unknown:
        raise UsageError(f"REGRADE={opts.regrade}: {', '.join(unknown)} handed in nothing in "
                         f"SUBMISSIONS ({len(students)} students did); name students who "
                         "did, or REGRADE=all")
    for sid, sub in sorted(students.items()):
        dest = submitted / sid / a
        stamp = state["students"].get(sid, {}).get("imported")
        if _files_digest(_read_files(dest)) != sub.digest() or not stamp:
            write_files(sub.files, dest)
            stamp = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
        intake.imported_at[sid] = stamp
        digest = hashlib.sha256((sub.digest() + key).encode()).hexdigest()
        old = state["students"].get(sid, {})
        if (sid not in regrade and regrade != {"all"} and old.get("digest") == digest
                and sid in graded_before
                and (not old.get("graded") or (course / "grading" / "autograded" / sid / a).is_dir())):
            intake.unchanged.append(sid)
            continue
        intake.todo.append((sid, sub, digest))
    return intake


def grade_class(opts: Options, intake: Intake, state: dict, db_url: str,
                seed_line: str) -> Outcome:
    """Grade ``intake.todo`` on a Dask cluster and merge each result here as it comes: into
    the course gradebook, grading/autograded/ and grading/feedback/, and the state (written
    after each student). A grader's failure merges nothing, so the next run grades it again.
    What happened, per student: graded, grader_errors, problems, notes, cluster."""
    from labkit.judge.reset import SEED_ENV

    out = Outcome()
    a, course = opts.assignment, opts.course
    reports = course / "grading" / "reports" / a
    state_path = reports / "state.json"
    submitted = course / "grading" / "submitted"
    workdir = Path(tempfile.mkdtemp(prefix=f"autograde-{a}-"))
    try:
        template = prepare_template(opts, workdir)
        limit = submission_limit(opts, template)
        import_notes = {sid: sub.notes for sid, sub, _ in intake.todo}
        digests = {sid: d for sid, _, d in intake.todo}
        from tqdm.auto import tqdm

        bar = tqdm(total=len(intake.todo), desc=f"grading {a}", unit="submission",
                   disable=opts.quiet, file=sys.stderr)

        def on_result(r: dict) -> None:
            t0 = time.monotonic()
            sid = r["student"]
            if "crash" in r or "grader_error" in r:
                # the grader's failure is never the student's grade: nothing is merged
                # and the state is not updated, so the next run grades it again
                why = r.get("grader_error") or r["crash"].strip().splitlines()[-1]
                out.grader_errors[sid] = why
                out.problems[sid] = [f"not graded, the grader's error (not the student's; "
                                     f"the gradebook keeps what it had): {why}"]
                bar.update(1)
                return
            # the submission time is when its content was imported, never a file's claim
            merge_result(db_url, a, r, intake.imported_at.get(sid))
            files = r.get("files", {}) if r.get("graded") else {}
            for kind in ("autograded", "feedback"):
                _write_tree(files.get(kind, {}), course / "grading" / kind / sid / a)
            if r.get("seconds") is not None:
                out.grade_seconds.append(float(r["seconds"]))
            notes = import_notes.get(sid, []) + r.get("notes", [])
            if r.get("errors"):
                out.problems[sid] = r["errors"] + notes
            elif notes:
                out.notes[sid] = notes
            state["students"][sid] = {"digest": digests[sid], "graded": bool(r.get("graded")),
                                      "errors": r.get("errors", []), "notes": notes,
                                      "sandboxed": opts.sandbox == "on",
                                      "imported": intake.imported_at.get(sid),
                                      "seed": os.environ[SEED_ENV]}
            _write_json(state_path, state)
            out.graded.append(sid)
            out.merge_seconds.append(time.monotonic() - t0)
            bar.update(1)

        def on_lost(sid: str, why: str) -> None:  # not merged: a re-run grades it
            out.problems[sid] = [why]
            out.cluster.append(f"{sid}: {why}")
            bar.update(1)

        try:
            from grading.batch.cluster import grade_all

            out.cluster.append(seed_line)
            grade_all(opts, template, [(sid, submitted / sid / a) for sid, _, _ in intake.todo],
                      on_result, on_lost, limit, out.cluster)
        finally:
            bar.close()
    finally:
        logs = sorted(workdir.glob("worker-*.log"))
        if logs:
            (reports / "logs").mkdir(parents=True, exist_ok=True)
            for log in logs:
                shutil.copy(log, reports / "logs" / log.name)
        shutil.rmtree(workdir, ignore_errors=True)
    return out


def write_reports(opts: Options, state: dict, db_url: str) -> tuple[list[dict], list[dict]]:
    """grading/reports/<assignment>/ (grades.csv, items.csv, items.png), and with
    ``opts.export`` grading/grades.csv and the LMS files, all from the course gradebook
    itself. (per student: scores; per test cell: full, partial and no credit)."""
    a, course = opts.assignment, opts.course
    reports = course / "grading" / "reports" / a
    rows, cells = read_gradebook(db_url, a)
    items = item_report(rows, cells)
    reports.mkdir(parents=True, exist_ok=True)
    # the seed each student's hidden inputs were drawn from, and how to draw them again: the
    # instructor's to see (here and in the printout), never in a student's feedback or comment
    notes_of = {sid: s.get("errors", []) + s.get("notes", [])
                + ([seed_note(str(s["seed"]))] if str(s.get("seed", "")).isdigit() else [])
                for sid, s in state["students"].items()}
    sandboxed = {sid: s.get("sandboxed", False) for sid, s in state["students"].items()}
    write_csv(reports / "grades.csv", ["student", "score", "max_score", *cells, "sandboxed",
                                       "notes"],
              [[r["student"], num(r["score"]), num(r["max_score"]),
                *[num(r["cells"].get(c, 0.0)) for c in cells],
                "yes" if sandboxed.get(r["student"]) else "no (graded with SANDBOX=off)",
                "; ".join(notes_of.get(r["student"], []))] for r in rows])
    write_csv(reports / "items.csv", ["cell", "points", "full", "partial", "none", "mean"],
              [[i["cell"], num(i["points"]), i["full"], i["partial"], i["none"], i["mean"]]
               for i in items])
    plot_items(items, reports / "items.png", f"{a}: credit per test cell ({len(rows)} students)")
    if opts.export:
        export_csv(db_url, course / "grading" / "grades.csv")
        from grading.batch.lms_export import write_lms_files  # Canvas's and Moodle's grade imports

        write_lms_files(db_url, a, reports)  # reports/<a>/canvas.csv, moodle.csv
    return rows, items


def autograde(opts: Options) -> Outcome:
    """Import, grade what changed, merge, write feedback and reports (see the module doc):
    one call per stage, each with a plain-data result."""
    check_options(opts)
    seed_line = start_run(opts)
    started = time.monotonic()
    reports = opts.course / "grading" / "reports" / opts.assignment
    state = read_state(reports / "state.json")
    db_url = opts.db_url or course_db_url(opts.course)
    intake = import_class(opts, state, db_url)
    out = grade_class(opts, intake, state, db_url, seed_line) if intake.todo else Outcome()
    if intake.problems:
        out.problems = {"(import)": intake.problems, **out.problems}
    out.unchanged = intake.unchanged
    for sid in out.unchanged:  # what the run that graded them found
        old = state["students"].get(sid, {})
        if old.get("errors"):
            out.problems[sid] = old["errors"] + old.get("notes", [])
        elif old.get("notes"):
            out.notes[sid] = old["notes"]
    out.rows, out.items = write_reports(opts, state, db_url)
    out.reports = reports
    out.seconds = time.monotonic() - started
    return out


def print_summary(opts: Options, out: Outcome) -> None:
    a = opts.assignment
    print(f"\n{a}: {len(out.graded)} graded, {len(out.unchanged)} unchanged (kept), "
          f"{len(out.grader_errors)} not graded (the grader's error), "
          f"{len(out.rows)} in the gradebook, {out.seconds:.1f} s")
    if opts.sandbox == "on":
        print("Students' code ran in a sandbox (grading/trusted/sandbox.py): no network, no view of "
              "solutions, gradebooks or other students.")
    else:
        print("WARNING: graded with SANDBOX=off: students' code could read and change what "
              "this user can; grades.csv marks these grades unsandboxed.")
    for line in out.cluster:
        print(line)
    print(table(["student", "score", "of", "status"],
                [[r["student"], num(r["score"]), num(r["max_score"]),
                  "problem: " + out.problems[r["student"]][0] if r["student"] in out.problems
                  else ("unchanged" if r["student"] in out.unchanged else "graded")
                  + ("; " + "; ".join(out.notes[r["student"]]) if r["student"] in out.notes
                     else "")]
                 for r in out.rows]))
    print("\nPer exercise (test cell): students with full / partial / no credit")
    print(table(["cell", "points", "full", "partial", "none", "mean"],
                [[i["cell"], num(i["points"]), i["full"], i["partial"], i["none"], i["mean"]]
                 for i in out.items]))
    if out.grader_errors:
        print("\nNot graded because the GRADER failed (not the students' work; their entries "
              "in the gradebook are unchanged):")
        for sid, why in sorted(out.grader_errors.items()):
            print(f"  {sid}: {why}")
        print(f"Fix the cause and run the same command again: only these are graded again "
              f"(REGRADE=all or REGRADE={','.join(sorted(out.grader_errors))} also regrades "
              "on request).")
    for who in sorted(k for k in out.problems if k == "(import)"):
        print("\nImport problems:\n  " + "\n  ".join(out.problems[who]))
    g = opts.course / "grading"
    print(f"\nFeedback:    {g / 'feedback'}/<student>/{a}/*.html"
          f"\nGrades:      {g / 'grades.csv'} (nbgrader export), {out.reports / 'grades.csv'}"
          f"\nItem report: {out.reports / 'items.csv'}, {out.reports / 'items.png'}")


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("assignment", nargs="?", default="")
    p.add_argument("submissions", nargs="?", default="")
    p.add_argument("--jobs", type=int, default=0, help="workers of the local Dask cluster "
                   "(default: one per core)")
    p.add_argument("--hidden", default="hide", help="hide (default) or show hidden tests' code "
                   "in feedback")
    p.add_argument("--pattern", default=None, help="regex for LMS zip file names, with groups "
                   "student_id and file_id")
    p.add_argument("--course", type=Path, default=REPO, help=argparse.SUPPRESS)
    p.add_argument("--cell-timeout", type=int, default=None, help="seconds per cell")
    p.add_argument("--quiet", action="store_true")
    p.add_argument("--sandbox", default="on", help="on (default): students' code runs in a "
                   "bubblewrap sandbox; off: without one, every grade marked unsandboxed")
    p.add_argument("--db-url", default=None, help="the gradebook as an SQLAlchemy URL, e.g. "
                   "postgresql://user@host/course (default: grading/gradebook.db, SQLite)")
    p.add_argument("--scheduler", default=None, help="grade on an existing Dask cluster, e.g. "
                   "tcp://host:8786 (default: a local cluster, one worker per core or --jobs)")
    p.add_argument("--regrade", default="", help="all, or students' ids (ada,ben): grade "
                   "them again even where their submission did not change")
    args = p.parse_args(argv)
    opts = Options(args.assignment, Path(args.submissions) if args.submissions else None,
                   args.course.resolve(), args.jobs, args.hidden, args.pattern or None,
                   args.cell_timeout, args.quiet, sandbox=args.sandbox,
                   db_url=args.db_url or None, scheduler=args.scheduler or None,
                   regrade=args.regrade)
    try:
        out = autograde(opts)
    except (UsageError, SubmissionsError, ClusterError) as exc:
        print(f"autograde: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("autograde: interrupted; grades merged so far are kept, run again to finish",
              file=sys.stderr)
        return 130
    print_summary(opts, out)
    return 1 if out.grader_errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
