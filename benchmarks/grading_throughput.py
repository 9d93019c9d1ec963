"""Grading throughput: the course's autograde on a local Dask cluster vs the home-made
worker pool it replaced vs nbgrader's own serial autograde.

    .venv/bin/python benchmarks/grading_throughput.py [--students 24] [--jobs 2] [--assignment A]
                                                      [--baseline REV] [--no-serial]

All grade the same submissions (copies of the solution and the learner notebook,
alternating) of one notebook, in separate scratch courses, one after the other in this
run. "Today's pool" is grading/autograde.py as of git revision REV (default: the last one
with the pool, WorkerSlot/run_workers), loaded from git into a scratch module and run with
this checkout's grade_worker; the Dask run is this checkout's. Both run every kernel in
the grading sandbox (grading/sandbox.py); nbgrader's serial run does not. Prints the wall
times, the ratios Dask/pool (target <= 1.0) and ours/serial (target <= 0.55 with 2
workers), the per-submission overhead (starting a kernel and importing what the
notebook's set-up cell imports, measured on its own) and what the sandbox adds to it (the
same, sandboxed and not, interleaved).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
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


BASELINE = "69b7513"  # the last grading/autograde.py with the home-made worker pool


def load_pool(rev: str, folder: Path):
    """grading/autograde.py as of ``rev`` (the worker pool), as a module of its own."""
    src = subprocess.run(["git", "-C", str(REPO), "show", f"{rev}:grading/autograde.py"],
                         capture_output=True, text=True)
    if src.returncode != 0:
        raise SystemExit(f"cannot read grading/autograde.py at {rev} from git "
                         f"({src.stderr.strip()}); pass --baseline REV or run in a git checkout")
    if "class WorkerSlot" not in src.stdout:
        raise SystemExit(f"grading/autograde.py at {rev} has no worker pool; pass --baseline "
                         "a revision before the Dask change")
    path = folder / "autograde_pool.py"
    path.write_text(src.stdout)
    spec = importlib.util.spec_from_file_location("autograde_pool", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["autograde_pool"] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


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
    p.add_argument("--baseline", default=BASELINE, help="git revision of today's pool")
    p.add_argument("--no-serial", action="store_true", help="skip nbgrader's serial run")
    p.add_argument("--rounds", type=int, default=2, help="runs of each, in alternating order")
    args = p.parse_args(argv)
    a = args.assignment
    os.environ["JUPYTER_CONFIG_PATH"] = str(REPO / "grading")
    os.environ.setdefault("MPLBACKEND", "Agg")
    with tempfile.TemporaryDirectory(prefix="grading-bench-") as tmp:
        tmp = Path(tmp)
        subs = tmp / "submissions"
        make_class(subs, a, args.students)
        pool = load_pool(args.baseline, tmp)
        out = None

        def timed(module, name: str) -> tuple[float, object]:
            start = time.perf_counter()
            out = module.autograde(module.Options(a, subs, course(tmp / name, a),
                                                  jobs=args.jobs, quiet=True))
            assert len(out.graded) == args.students, out.problems
            return time.perf_counter() - start, out

        pools, ours = [], []
        for r in range(args.rounds):  # alternate the order: neither gets the warmer caches
            for module, name in ([(pool, "pool"), (ag, "dask")] if r % 2 == 0
                                 else [(ag, "dask"), (pool, "pool")]):
                t, o = timed(module, f"{name}-{r}")
                (pools if module is pool else ours).append(t)
                out = o if module is ag else out
        t_pool, t_ours = sum(pools) / len(pools), sum(ours) / len(ours)

        t_theirs = None
        if not args.no_serial:
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
          "(all include generate_assignment and HTML feedback)")
    if t_theirs is not None:
        print(f"  nbgrader autograde, serial:                 {t_theirs:7.1f} s  "
              f"({t_theirs / n:.2f} s/submission)")
    each = lambda ts: ", ".join(f"{t:.1f}" for t in ts)  # noqa: E731
    print(f"  today's pool ({args.baseline}), {args.jobs} workers, sandboxed: {t_pool:7.1f} s  "
          f"({t_pool / n:.2f} s/submission; runs: {each(pools)} s)")
    print(f"  local Dask cluster, {args.jobs} workers, sandboxed:   {t_ours:7.1f} s  "
          f"({t_ours / n:.2f} s/submission, {60 * n / t_ours:.1f} submissions/min; runs: "
          f"{each(ours)} s)")
    print(f"  ratio Dask/pool: {t_ours / t_pool:.2f}  (target <= 1.0)")
    if t_theirs is not None:
        print(f"  ratio Dask/serial: {t_ours / t_theirs:.2f}  (target <= 0.55)")
    mean = sum(out.grade_seconds) / max(len(out.grade_seconds), 1)
    print(f"  Dask run: {mean:.2f} s per submission inside the grading processes, "
          f"{sum(out.merge_seconds) / max(len(out.merge_seconds), 1) * 1000:.0f} ms per "
          "result merged here")
    print(f"  per-submission overhead, kernel start + set-up imports: {overhead:.2f} s plain, "
          f"{boxed:.2f} s sandboxed (the sandbox adds {boxed - overhead:+.2f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
