"""Grading throughput: the course's parallel autograde vs nbgrader's own serial autograde.

    .venv/bin/python benchmarks/grading_throughput.py [--students 24] [--jobs 2] [--assignment A]

Both grade the same submissions (copies of the solution and the learner notebook,
alternating) of one notebook, in separate scratch courses, one after the other in this
run; ours runs every kernel in the grading sandbox (grading/sandbox.py), nbgrader's does
not. Prints both wall times, their ratio (the target is <= 0.55 with 2 workers), the
per-submission overhead (starting a kernel and importing what the notebook's set-up cell
imports, measured on its own) and what the sandbox adds to it (the same, sandboxed and
not, interleaved).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import nbformat

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from grading import autograde as ag  # noqa: E402
from grading.course import NOTEBOOKS, REPO, SOLUTIONS, nbgrader  # noqa: E402


def make_class(folder: Path, assignment: str, students: int) -> None:
    sol = nbformat.read(SOLUTIONS / assignment / f"{assignment}.ipynb", as_version=4)
    blank = nbformat.read(NOTEBOOKS / assignment / f"{assignment}.ipynb", as_version=4)
    for i in range(students):
        d = folder / f"s{i:03d}" / assignment
        d.mkdir(parents=True)
        nbformat.write(sol if i % 2 == 0 else blank, str(d / f"{assignment}.ipynb"))


def course(base: Path, assignment: str) -> Path:
    shutil.copytree(SOLUTIONS / assignment, base / "solutions" / assignment)
    (base / "grading").mkdir(parents=True)
    return base


def kernel_overhead(setup_code: str, repeat: int = 5) -> tuple[float, float]:
    """Seconds to start a kernel, run the set-up imports and shut it down (median), plain
    and in the sandbox, measured alternately."""
    import asyncio

    from jupyter_client.manager import AsyncKernelManager

    from grading.sandbox import SandboxKernelManager

    async def once(cls) -> float:
        start = time.perf_counter()
        km = cls(kernel_name="python3")
        await km.start_kernel()
        kc = km.client()
        kc.start_channels()
        try:
            await kc.wait_for_ready(timeout=120)
            await kc.execute_interactive(setup_code, timeout=120)
        finally:
            kc.stop_channels()
            await km.shutdown_kernel(now=True)
        return time.perf_counter() - start

    plain, boxed = [], []
    for _ in range(repeat):
        plain.append(asyncio.run(once(AsyncKernelManager)))
        boxed.append(asyncio.run(once(SandboxKernelManager)))
    median = lambda xs: sorted(xs)[len(xs) // 2]  # noqa: E731
    return median(plain), median(boxed)


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--students", type=int, default=24)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--assignment", default="00_getting_started")
    args = p.parse_args(argv)
    a = args.assignment
    os.environ["JUPYTER_CONFIG_PATH"] = str(REPO / "grading")
    os.environ.setdefault("MPLBACKEND", "Agg")
    with tempfile.TemporaryDirectory(prefix="grading-bench-") as tmp:
        tmp = Path(tmp)
        subs = tmp / "submissions"
        make_class(subs, a, args.students)

        ours = course(tmp / "ours", a)
        start = time.perf_counter()
        out = ag.autograde(ag.Options(a, subs, ours, jobs=args.jobs, quiet=True))
        t_ours = time.perf_counter() - start
        assert len(out.graded) == args.students, out.problems

        theirs = course(tmp / "theirs", a)
        db = f"sqlite:///{theirs / 'grading' / 'gradebook.db'}"
        start = time.perf_counter()
        nbgrader("generate_assignment", a, "--force", root=theirs, db_url=db)
        shutil.copytree(subs, theirs / "grading" / "submitted")
        nbgrader("autograde", a, "--force", root=theirs, db_url=db, timeout=3600)
        nbgrader("generate_feedback", a, "--force", root=theirs, db_url=db, timeout=3600)
        t_theirs = time.perf_counter() - start

        setup = next(c.source for c in nbformat.read(SOLUTIONS / a / f"{a}.ipynb",
                                                     as_version=4).cells
                     if c.cell_type == "code" and "import" in c.source)
        overhead, boxed = kernel_overhead(setup)

    n = args.students
    print(f"grading {n} submissions of {a} on {os.cpu_count()} cores "
          "(both include generate_assignment and HTML feedback)")
    print(f"  nbgrader autograde, serial:        {t_theirs:7.1f} s  ({t_theirs / n:.2f} s/submission)")
    print(f"  grading/autograde.py, {args.jobs} workers, sandboxed:  {t_ours:7.1f} s  "
          f"({t_ours / n:.2f} s/submission)")
    print(f"  ratio ours/serial: {t_ours / t_theirs:.2f}  (target <= 0.55)")
    print(f"  per-submission overhead, kernel start + set-up imports: {overhead:.2f} s plain, "
          f"{boxed:.2f} s sandboxed (the sandbox adds {boxed - overhead:+.2f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
