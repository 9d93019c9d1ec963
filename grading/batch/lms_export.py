"""Grade files an LMS gradebook imports, written from the course gradebook (nbgrader's).

    python grading/batch/lms_export.py ASSIGNMENT [--canvas-id ID] [--db-url URL]
    make autograde ... [CANVAS_ASSIGNMENT_ID=1234]      (writes them after every run)

Two files per assignment, in grading/reports/<assignment>/, one row per student with a
submission (students without one are left out, so the LMS keeps what it has for them):

canvas.csv -- Canvas: Grades > Import. Columns, as Canvas's own gradebook export has them:

    Student         "Last, First" from the gradebook's roster, else the student id
    ID              the Canvas user id (nbgrader's lms_user_id; empty if the roster has none)
    SIS User ID     the student id in nbgrader (the SIS id, or the login the LMS exported)
    Section         empty (Canvas does not need it to match a student)
    <name> (<id>)   the score in points; <id> is the Canvas assignment id (the number in the
                    assignment's address .../assignments/<id>, CANVAS_ASSIGNMENT_ID=), and
                    without one the column is just <name>, which Canvas imports as a new
                    assignment

  and a second row "Points Possible" with the assignment's maximum score (as in Canvas's
  export). Canvas matches a row by ID, else by SIS User ID. Put students' Canvas ids in the
  gradebook with ``nbgrader db student import roster.csv`` (columns id, first_name,
  last_name, email, lms_user_id).

moodle.csv -- Moodle: Grades > Import > CSV file. Columns:

    First name, Last name, Username (the student id), Email address, <name> (the score)

  On import, map "Identifier from the file" Username (or Email address) to the Moodle user
  field username (or email), and the <name> column to the assignment's grade item.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from grading.batch.reports import num, write_csv  # noqa: E402

CANVAS_ID = re.compile(r"^[0-9]{1,20}$")


class LmsExportError(ValueError):
    """Bad input for an LMS export; the message names the problem and the fix."""


def gradebook_rows(db_url: str, assignment: str) -> tuple[list[dict], float]:
    """(per student with a submission: id, names, email, LMS id, score; the maximum score)."""
    from nbgrader.api import Gradebook, MissingEntry

    rows = []
    with Gradebook(db_url) as gb:
        try:
            a = gb.find_assignment(assignment)
        except MissingEntry:
            known = ", ".join(x.name for x in gb.assignments) or "none"
            raise LmsExportError(f"assignment {assignment!r} is not in the gradebook ({db_url}; "
                                 f"it holds: {known}); grade it first with make autograde "
                                 f"ASSIGNMENT={assignment} SUBMISSIONS=...") from None
        max_score = float(a.max_score or 0.0)
        for sub in sorted(a.submissions, key=lambda s: s.student.id):
            st = sub.student
            rows.append({"id": st.id, "first_name": st.first_name or "",
                         "last_name": st.last_name or "", "email": st.email or "",
                         "lms_user_id": st.lms_user_id or "", "score": float(sub.score or 0.0)})
    return rows, max_score


def canvas_column(assignment: str, canvas_id: str | None) -> str:
    return f"{assignment} ({canvas_id})" if canvas_id else assignment


def check_canvas_id(canvas_id: str | None) -> str | None:
    if canvas_id in (None, ""):
        return None
    canvas_id = str(canvas_id).strip()
    if not CANVAS_ID.match(canvas_id):
        raise LmsExportError(f"CANVAS_ASSIGNMENT_ID={canvas_id!r} is not a Canvas assignment id: "
                             "use the number at the end of the assignment's address in Canvas "
                             "(.../assignments/<id>), e.g. CANVAS_ASSIGNMENT_ID=1234")
    return canvas_id


def write_canvas(path: Path, assignment: str, rows: list[dict], max_score: float,
                 canvas_id: str | None = None) -> Path:
    """Canvas's gradebook import: Student, ID, SIS User ID, Section, '<name> (<id>)'."""
    canvas_id = check_canvas_id(canvas_id)
    name = lambda r: (f"{r['last_name']}, {r['first_name']}"  # noqa: E731
                      if r["last_name"] and r["first_name"] else r["last_name"] or r["id"])
    write_csv(path, ["Student", "ID", "SIS User ID", "Section", canvas_column(assignment, canvas_id)],
           [["Points Possible", "", "", "", num(max_score)]]
           + [[name(r), r["lms_user_id"], r["id"], "", num(r["score"])] for r in rows])
    return path


def write_moodle(path: Path, assignment: str, rows: list[dict]) -> Path:
    """Moodle's CSV grade import: an identifier column (Username or Email address), a grade."""
    write_csv(path, ["First name", "Last name", "Username", "Email address", assignment],
           [[r["first_name"], r["last_name"], r["id"], r["email"], num(r["score"])]
            for r in rows])
    return path


def write_lms_files(db_url: str, assignment: str, folder: Path,
                    canvas_id: str | None = None) -> dict[str, Path]:
    """canvas.csv and moodle.csv for one assignment in ``folder``, from the gradebook.

    The Canvas assignment id is ``canvas_id``, else $CANVAS_ASSIGNMENT_ID. A bad one is
    reported in one line on stderr and the Canvas column is written without it (the grades
    of the run are never lost over an export setting).
    """
    if canvas_id is None:
        canvas_id = os.environ.get("CANVAS_ASSIGNMENT_ID") or None
    try:
        canvas_id = check_canvas_id(canvas_id)
    except LmsExportError as exc:
        print(f"lms export: {exc}; canvas.csv has a new-assignment column instead",
              file=sys.stderr)
        canvas_id = None
    rows, max_score = gradebook_rows(db_url, assignment)
    folder = Path(folder)
    return {"canvas": write_canvas(folder / "canvas.csv", assignment, rows, max_score, canvas_id),
            "moodle": write_moodle(folder / "moodle.csv", assignment, rows)}


def main(argv: list[str]) -> int:
    from grading.course import REPO

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("assignment")
    p.add_argument("--canvas-id", default=os.environ.get("CANVAS_ASSIGNMENT_ID") or None,
                   help="the Canvas assignment id (default $CANVAS_ASSIGNMENT_ID)")
    p.add_argument("--db-url", default=None, help="the gradebook (default: the course's)")
    p.add_argument("--course", type=Path, default=REPO, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    course = args.course.resolve()
    db_url = (args.db_url or os.environ.get("COURSE_DB_URL")
              or f"sqlite:///{course / 'grading' / 'gradebook.db'}")
    if db_url.startswith("sqlite:///") and not Path(db_url[len("sqlite:///"):]).is_file():
        print(f"lms export: no gradebook at {db_url[len('sqlite:///'):]}; grade first with make "
              f"autograde ASSIGNMENT={args.assignment} SUBMISSIONS=...", file=sys.stderr)
        return 2
    try:
        canvas_id = check_canvas_id(args.canvas_id)
        files = write_lms_files(db_url, args.assignment,
                                course / "grading" / "reports" / args.assignment, canvas_id)
    except LmsExportError as exc:
        print(f"lms export: {exc}", file=sys.stderr)
        return 2
    print(f"Canvas: {files['canvas']}\nMoodle: {files['moodle']}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
