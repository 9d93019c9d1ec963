"""One grading worker: a long-lived process that autogrades one student at a time.

    python -m grading.batch.grade_worker WORKDIR ASSIGNMENT HIDDEN(show|hide) [SANDBOX(on|off)]

WORKDIR is a scratch course of its own (solutions/, notebooks/, grading/gradebook.db)
made by grading/batch/autograde.py, so workers never write the same SQLite file. nbgrader is
imported once per worker, not once per submission. The parent sends one JSON line per
job on stdin ({"student": ..., "src": folder}) and reads one JSON line per result from
the worker's original stdout; everything else the worker (or a kernel) prints goes to
stderr, which the parent sends to a log file. With SANDBOX on (the default) every
kernel runs in a bubblewrap sandbox (grading/trusted/sandbox.py) that sees only the assignment's
released files, never this scratch course.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
import traceback
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def load_config(root: Path, hidden: str, sandbox: bool = False, assignment: str = ""):
    """The course's nbgrader config for a scratch course at ``root``, plus the batch additions
    (and, with ``sandbox``, kernels started by grading/trusted/sandbox.py)."""
    os.environ["COURSE_ROOT"] = str(root)
    os.environ.pop("COURSE_DB_URL", None)
    from nbconvert.preprocessors import CSSHTMLHeaderPreprocessor
    from nbgrader.preprocessors import GetGrades
    from traitlets.config.loader import PyFileConfigLoader

    from grading.trusted.preprocessors import HideGraderPaths, HideHiddenTests

    # the trusted autograde pipeline (judge + sandbox) comes from the course's config
    cfg = PyFileConfigLoader("nbgrader_config.py", path=str(REPO / "grading")).load_config()
    # the student's feedback: no path of the grader's machine (its venv, the course, its
    # scratch folders) and, unless HIDDEN=show, no hidden test's code
    feedback = [GetGrades, HideGraderPaths, CSSHTMLHeaderPreprocessor]
    if hidden != "show":
        feedback.insert(1, HideHiddenTests)
    cfg.GenerateFeedback.preprocessors = feedback
    # the course's kernel, whatever kernelspec a submission's metadata names
    cfg.Execute.kernel_name = "python3"
    # test cells run in a judge kernel, from the instructor's copy (grading/trusted/judge.py)
    cfg.JudgedExecute.source_folder = str(root / "solutions" / assignment)
    cfg.JudgedExecute.files_from = str(root / "notebooks" / assignment)
    cfg.JudgedExecute.sandbox = "on" if sandbox else "off"
    return cfg


class Worker:
    def __init__(self, root: Path, assignment: str, hidden: str, sandbox: bool = False):
        from nbgrader.api import Gradebook
        from nbgrader.apps import NbGraderAPI

        self.root, self.assignment = root, assignment
        self.db_url = f"sqlite:///{root / 'grading' / 'gradebook.db'}"
        self.api = NbGraderAPI(config=load_config(root, hidden, sandbox, assignment))
        self.expected = sorted(p.name for p in (root / "notebooks" / assignment).glob("*.ipynb"))
        self.cells: dict[str, dict[str, float]] = {}
        with Gradebook(self.db_url) as gb:
            for nb in gb.find_assignment(assignment).notebooks:
                self.cells[nb.name] = {c.name: c.max_score for c in nb.grade_cells}
        self.source_ids = {}
        import nbformat
        for name in self.expected:
            src = nbformat.read(root / "solutions" / assignment / name, as_version=4)
            self.source_ids[Path(name).stem] = {
                c.metadata["nbgrader"]["grade_id"]: c.metadata["nbgrader"]
                for c in src.cells if "grade_id" in c.metadata.get("nbgrader", {})}

    def grade(self, student: str, src: str) -> dict:
        from nbgrader.api import Gradebook, MissingEntry

        from grading.batch.submissions import check_notebook, structure_notes

        start = time.monotonic()
        a = self.assignment
        for kind in ("submitted", "autograded", "feedback"):
            shutil.rmtree(self.root / "grading" / kind / student, ignore_errors=True)
        sub = self.root / "grading" / "submitted" / student / a
        if Path(src).is_dir():
            shutil.copytree(src, sub)
        else:  # nothing usable was handed in (e.g. only a renamed notebook)
            sub.mkdir(parents=True)
        notes, errors = [], []
        for name in self.expected:
            path = sub / name
            if not path.exists():
                notes.append(f"{name}: not submitted, scored 0")
                continue
            data = path.read_bytes()
            why = check_notebook(data, self.source_ids[Path(name).stem])
            if why:
                errors.append(f"{name}: {why}; scored 0")
                path.unlink()
            else:
                notes += [f"{name}: {n}" for n in structure_notes(data, self.source_ids[Path(name).stem])]
        present = [n for n in self.expected if (sub / n).exists()]
        graded = False
        if present:
            res, failure = _autograde_or_failure(self.api, a, student)
            if failure:  # once more: a kernel that could not start may start the next time
                print(f"grading {student}: the grader's failure ({failure}); trying once more",
                      file=sys.stderr)
                res, failure = _autograde_or_failure(self.api, a, student)
            if failure:  # never a grade: reported as the grader's, the gradebook untouched
                return {"student": student, "grader_error": failure, "notes": notes,
                        "seconds": round(time.monotonic() - start, 3)}
            if res.get("success"):
                graded = True
                limit = self.api.config.Execute.timeout
                for name in present:  # why cells scored 0 without a wrong answer
                    done = self.root / "grading" / "autograded" / student / a / name
                    if done.exists():
                        notes += [f"{name}: {n}" for n in run_notes(done.read_bytes(), limit)]
                fb = self.api.generate_feedback(a, student, force=True)
                if not fb.get("success"):
                    notes.append("feedback not generated: " + _last_line(fb.get("error", "")))
            else:
                errors.append("nbgrader could not grade it: " + _why(res))
                print(res.get("log", ""), res.get("error", ""), file=sys.stderr)
        notebooks = {}
        with Gradebook(self.db_url) as gb:
            for nb_name, cells in self.cells.items():
                got = {gid: {"auto_score": 0.0, "max_score": m, "needs_manual_grade": False}
                       for gid, m in cells.items()}
                comments = {}
                if graded and f"{nb_name}.ipynb" in present:
                    try:
                        sn = gb.find_submission_notebook(nb_name, a, student)
                    except MissingEntry:
                        sn = None
                    for g in sn.grades if sn else []:
                        got[g.name] = {"auto_score": g.auto_score, "max_score": g.max_score,
                                       "needs_manual_grade": bool(g.needs_manual_grade)}
                    for c in sn.comments if sn else []:
                        if c.auto_comment:
                            comments[c.name] = c.auto_comment
                notebooks[nb_name] = {"grades": got, "comments": comments}
        return {"student": student, "notebooks": notebooks, "notes": notes, "errors": errors,
                "graded": graded, "root": str(self.root), "seconds": round(time.monotonic() - start, 3)}


def run_notes(data: bytes, limit) -> list[str]:
    """What stopped cells of an autograded notebook: cells interrupted at the per-cell time
    limit, and the cell in which the kernel died (nbgrader's CellTimeoutError and the
    KernelDied errors of grading/trusted/preprocessors.py's RobustExecute)."""
    import nbformat

    nb = nbformat.reads(data.decode("utf-8"), as_version=4)
    timed_out, died, not_run = [], None, 0
    for i, cell in enumerate(nb.cells):
        errors = [o for o in cell.get("outputs", []) if o.get("output_type") == "error"]
        gid = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        where = f"cell {i + 1}" + (f" ({gid})" if gid else "")
        if any(e.get("ename") == "CellTimeoutError" for e in errors):
            timed_out.append(where)
        for e in errors:
            if e.get("ename") == "KernelDied":
                if "died while running this cell" in e.get("evalue", ""):
                    died = where
                else:
                    not_run += 1
                break
    notes = []
    if timed_out:
        seconds = f"{limit} s " if isinstance(limit, int) and limit > 0 else ""
        notes.append(f"interrupted at the {seconds}per-cell time limit: " + ", ".join(timed_out))
    if died:
        notes.append(f"the kernel died in {died} (os._exit, a segfault or running out of "
                     f"memory); {not_run} later code cell(s) not run, their tests scored 0")
    elif not_run:
        notes.append(f"the kernel died outside a cell; {not_run} code cell(s) not run, "
                     "their tests scored 0")
    return notes


def _autograde_or_failure(api, assignment: str, student: str) -> tuple[dict, str | None]:
    """nbgrader's autograde of one student, and the cause of a GraderFailure it met (read
    from the record the grading process kept, not from the log), or None."""
    from grading.trusted.preprocessors import FAILURES

    FAILURES.clear()
    res = api.autograde(assignment, student, force=True, create=True)
    return res, (FAILURES[-1] if FAILURES and not res.get("success") else None)


def _why(res: dict) -> str:
    """The most telling line of a failed nbgrader run's log."""
    log = [ln for ln in str(res.get("log", "")).splitlines() if ln.startswith("[ERROR]")
           and "see the the above traceback" not in ln and "There was an error" not in ln]
    return log[0][8:].strip()[:300] if log else _last_line(res.get("error", ""))


def _last_line(text: str) -> str:
    lines = [ln.strip() for ln in str(text).strip().splitlines() if ln.strip()]
    return lines[-1][:300] if lines else "unknown error"


def main(argv: list[str]) -> int:
    root, assignment, hidden = Path(argv[0]), argv[1], argv[2]
    sandbox = (argv[3] if len(argv) > 3 else "on") == "on"
    proto = os.fdopen(os.dup(1), "w", buffering=1)  # the parent's channel, not inherited
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    sys.path.insert(0, str(REPO))
    worker = Worker(root, assignment, hidden, sandbox)
    proto.write(json.dumps({"ready": True}) + "\n")
    for line in sys.stdin:
        if not line.strip():
            continue
        job = json.loads(line)
        if job.get("quit"):
            break
        try:
            result = worker.grade(job["student"], job["src"])
        except Exception:  # noqa: BLE001 (one bad submission never stops the worker)
            result = {"student": job["student"], "crash": traceback.format_exc()[-2000:]}
        proto.write(json.dumps(result) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
