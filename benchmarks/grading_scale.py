"""Grading at scale: a synthetic class graded on the local Dask cluster, and what a large
class would take on N workers.

    .venv/bin/python benchmarks/grading_scale.py [--students 200] [--jobs 0] [--target 2000]
                                                 [--assignment 00_getting_started]

The class mixes three kinds of submission, generated from solutions/ and the learner
notebook: the solution (full marks), the untouched learner notebook (zero) and a partial
one (the first exercise solved, the rest left blank), in turn. It is graded once with
``make autograde``'s code path (grading/batch/autograde.py on a local Dask cluster, one worker
per core unless --jobs, every kernel sandboxed), and the script prints:

- submissions per minute (wall clock, including start-up: template, cluster, grading
  processes);
- worker-seconds per submission (workers x wall / submissions), split into the time
  spent grading inside the grading processes and the per-submission overhead (the rest:
  Dask dispatch, bytes in and out, the merge into the gradebook, start-up, amortised);
- the instructor-side time per result (merge + feedback files), which bounds a large
  cluster's rate: one process merges every grade;
- the arithmetic for --target students on N workers.
"""

from __future__ import annotations

import argparse
import copy
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import nbformat

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from grading.batch import autograde as ag  # noqa: E402
from grading.course import NOTEBOOKS, REPO, SOLUTIONS  # noqa: E402


def make_class(folder: Path, assignment: str, students: int) -> dict[str, int]:
    """Solution / blank / partial submissions in turn; how many of each."""
    name = f"{assignment}.ipynb"
    sol = nbformat.read(SOLUTIONS / assignment / name, as_version=4)
    blank = nbformat.read(NOTEBOOKS / assignment / name, as_version=4)
    ids = [c.metadata.get("nbgrader", {}).get("grade_id") for c in sol.cells]
    first = next(c.metadata["nbgrader"]["grade_id"] for c in sol.cells
                 if c.metadata.get("nbgrader", {}).get("solution") and c.cell_type == "code")
    partial = copy.deepcopy(blank)
    for i, c in enumerate(partial.cells):
        if c.metadata.get("nbgrader", {}).get("grade_id") == first:
            partial.cells[i] = copy.deepcopy(sol.cells[ids.index(first)])
    kinds = [("solution", sol), ("blank", blank), ("partial", partial)]
    counts = {k: 0 for k, _ in kinds}
    for i in range(students):
        kind, nb = kinds[i % 3]
        counts[kind] += 1
        d = folder / f"s{i:04d}" / assignment
        d.mkdir(parents=True)
        nbformat.write(nb, str(d / name))
    return counts


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--students", type=int, default=200)
    p.add_argument("--jobs", type=int, default=0, help="local workers (default: one per core)")
    p.add_argument("--target", type=int, default=2000, help="class size for the arithmetic")
    p.add_argument("--assignment", default="00_getting_started")
    args = p.parse_args(argv)
    a, n = args.assignment, args.students
    os.environ["JUPYTER_CONFIG_PATH"] = str(REPO / "grading")
    os.environ.setdefault("MPLBACKEND", "Agg")
    workers = args.jobs or os.cpu_count() or 1
    with tempfile.TemporaryDirectory(prefix="grading-scale-") as tmp:
        tmp = Path(tmp)
        counts = make_class(tmp / "submissions", a, n)
        course = tmp / "course"
        shutil.copytree(SOLUTIONS / a, course / "solutions" / a)
        start = time.perf_counter()
        out = ag.autograde(ag.Options(a, tmp / "submissions", course, jobs=workers,
                                      quiet=False))
        wall = time.perf_counter() - start
    assert len(out.graded) == n, out.problems
    full = sum(1 for r in out.rows if r["score"] == r["max_score"])
    zero = sum(1 for r in out.rows if r["score"] == 0)
    grading = sum(out.grade_seconds) / len(out.grade_seconds)
    merge = sum(out.merge_seconds) / len(out.merge_seconds)
    per_worker = workers * wall / n  # worker-seconds per submission, start-up included
    overhead = per_worker - grading
    print(f"\ngraded {n} submissions of {a} ({counts['solution']} solutions, "
          f"{counts['blank']} blank, {counts['partial']} partial; {full} full marks, {zero} zero) "
          f"on a local Dask cluster of {workers} workers, {os.cpu_count()} cores, sandboxed")
    print(f"  wall clock:            {wall:8.1f} s  -> {60 * n / wall:.1f} submissions/min")
    print(f"  per submission:        {per_worker:8.2f} worker-seconds = {grading:.2f} s grading "
          f"(inside the grading process) + {overhead:.2f} s overhead (dispatch, transfer, "
          "merge, start-up, amortised)")
    print(f"  instructor side:       {merge * 1000:8.0f} ms per result (gradebook merge + "
          f"feedback files), a ceiling of {60 / merge:.0f} submissions/min for any cluster")
    print(f"\n{args.target} students on N workers like these "
          f"(~ {args.target} x {per_worker:.2f} s / N, never below {args.target} x {merge:.3f} s):")
    for nw in sorted({2, 8, 16, 32, 64, 128, workers}):
        t = max(args.target * per_worker / nw, args.target * merge)
        print(f"  N = {nw:4d}: {t / 60:7.1f} min")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
