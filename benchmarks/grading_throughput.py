"""Grading throughput: the course's trusted autograde (sandbox + judge, local Dask cluster)
vs plain nbgrader's serial autograde, and optionally vs the worker pool Dask replaced.

    .venv/bin/python benchmarks/grading_throughput.py [--students 24] [--jobs 2]
        [--assignment A ...|all] [--rounds 2] [--no-serial] [--pool [--baseline REV]]

Each grades the same submissions (copies of the solution and the learner notebook,
alternating) of one notebook, in separate scratch courses, one after the other in this
run, in alternating order over the rounds. "Plain nbgrader" is nbgrader 0.9's own serial
`autograde` + `generate_feedback` with its default preprocessors and only the course's
folder layout configured: tests run in the student's own kernel, no sandbox, no judge (not
the course's grading/nbgrader_config.py, which would make it the judged path run serially).
"Today's pool" (--pool) is grading/autograde.py as of git revision REV (default: the last
one with the pool), loaded from git into a scratch module and run with this checkout's
grade_worker. Prints, per notebook, the wall times, the ratio ours/plain (target <= 0.55
with 2 workers), and the per-submission overhead of starting a kernel and importing what
the notebook's set-up cell imports (plain and sandboxed, measured interleaved).
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

from grading.batch import autograde as ag  # noqa: E402
from grading.course import (LAYOUT, NOTEBOOKS, REPO, SOLUTIONS, assignments,  # noqa: E402
                            nbgrader)
from grading.trusted.judge import TIMINGS_ENV  # noqa: E402


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

    from grading.trusted.sandbox import SandboxKernelManager

    async def once(cls) -> float:
        start = time.perf_counter()
        km = cls(kernel_name="python3")
        await km.start_kernel(stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # its banner
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


def plain_config(root: Path, db: str, exchange: Path) -> str:
    """nbgrader_config.py for plain nbgrader: the course's folder layout, nothing else."""
    lines = ["c = get_config()  # noqa: F821", f"c.CourseDirectory.root = {str(root)!r}"]
    lines += [f"c.CourseDirectory.{k} = {v!r}" for k, v in LAYOUT.items()]
    lines += [f"c.CourseDirectory.db_url = {db!r}", f"c.Exchange.root = {str(exchange)!r}"]
    return "\n".join(lines) + "\n"


def plain_nbgrader(base: Path, assignment: str, subs: Path) -> float:
    """Seconds for plain nbgrader (default preprocessors, the course layout only) to
    generate, autograde serially and write feedback for ``subs``."""
    theirs = course(base, assignment)
    config = base / "plain-config"
    config.mkdir()
    db = f"sqlite:///{theirs / 'grading' / 'gradebook.db'}"
    (config / "nbgrader_config.py").write_text(plain_config(theirs, db, base / "exchange"))
    run = lambda *a: nbgrader(*a, "--force", root=theirs, config_dir=config,  # noqa: E731
                              timeout=3 * 3600)
    start = time.perf_counter()
    run("generate_assignment", assignment)
    shutil.copytree(subs, theirs / "grading" / "submitted")
    run("autograde", assignment)
    run("generate_feedback", assignment)
    return time.perf_counter() - start


def read_phases(path: Path) -> dict[str, float]:
    """Mean seconds per graded notebook of each phase grading/trusted/judge.py recorded."""
    import json

    if not path.exists():
        return {}
    rows = [json.loads(line)["seconds"] for line in path.read_text().splitlines() if line]
    keys = sorted({k for r in rows for k in r}, key=lambda k: (k == "total", k))
    return {k: sum(r.get(k, 0.0) for r in rows) / len(rows) for k in keys}


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--students", type=int, default=24)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--assignment", action="append",
                   help="notebook to grade (repeat it, or 'all'; default 00_getting_started)")
    p.add_argument("--pool", action="store_true", help="also time the worker pool Dask replaced")
    p.add_argument("--baseline", default=BASELINE, help="git revision of the pool (--pool)")
    p.add_argument("--no-serial", action="store_true", help="skip plain nbgrader's serial run")
    p.add_argument("--rounds", type=int, default=2, help="runs of each, in alternating order")
    args = p.parse_args(argv)
    names = args.assignment or ["00_getting_started"]
    if "all" in names:
        names = assignments()
    os.environ["JUPYTER_CONFIG_PATH"] = str(REPO / "grading")
    os.environ.setdefault("MPLBACKEND", "Agg")
    n = args.students
    print(f"grading {n} submissions of each notebook on {os.cpu_count()} cores, {args.rounds} "
          "round(s) in alternating order (all include generate_assignment and HTML feedback)")
    for a in names:
        with tempfile.TemporaryDirectory(prefix="grading-bench-") as tmp:
            tmp = Path(tmp)
            subs = tmp / "submissions"
            make_class(subs, a, n)
            pool = load_pool(args.baseline, tmp) if args.pool else None
            times: dict[str, list[float]] = {"ours": [], "plain": [], "pool": []}
            out = None

            timings = tmp / "timings.jsonl"

            def ours(module, name: str) -> float:
                nonlocal out
                os.environ[TIMINGS_ENV] = str(timings)  # each graded notebook's phases
                start = time.perf_counter()
                try:
                    result = module.autograde(module.Options(a, subs, course(tmp / name, a),
                                                             jobs=args.jobs, quiet=True))
                finally:
                    os.environ.pop(TIMINGS_ENV, None)
                assert len(result.graded) == n, result.problems
                if module is ag:
                    out = result
                return time.perf_counter() - start

            runs = [("ours", lambda r: ours(ag, f"dask-{r}"))]
            if not args.no_serial:
                runs.append(("plain", lambda r: plain_nbgrader(tmp / f"plain-{r}", a, subs)))
            if pool is not None:
                runs.append(("pool", lambda r: ours(pool, f"pool-{r}")))
            for r in range(args.rounds):  # alternate the order: neither gets the warmer caches
                for key, fn in (runs if r % 2 == 0 else runs[::-1]):
                    times[key].append(fn(r))
            setup = next(c.source for c in nbformat.read(SOLUTIONS / a / f"{a}.ipynb",
                                                         as_version=4).cells
                         if c.cell_type == "code" and "import" in c.source)
            overhead, boxed = kernel_overhead(setup)
            phases = read_phases(timings)

        mean = {k: sum(v) / len(v) for k, v in times.items() if v}
        each = lambda ts: ", ".join(f"{t:.1f}" for t in ts)  # noqa: E731
        print(f"{a}:")
        print(f"  ours: sandbox + judge, local Dask, {args.jobs} workers: {mean['ours']:7.1f} s "
              f"({mean['ours'] / n:.2f} s/submission; runs: {each(times['ours'])} s)")
        if "plain" in mean:
            print(f"  plain nbgrader, serial, default preprocessors:   {mean['plain']:7.1f} s "
                  f"({mean['plain'] / n:.2f} s/submission; runs: {each(times['plain'])} s)")
            print(f"  ratio ours/plain: {mean['ours'] / mean['plain']:.2f}  (target <= 0.55)")
        if "pool" in mean:
            print(f"  the pool ({args.baseline}), {args.jobs} workers, sandboxed: "
                  f"{mean['pool']:7.1f} s; ratio Dask/pool: {mean['ours'] / mean['pool']:.2f}")
        inside = sum(out.grade_seconds) / max(len(out.grade_seconds), 1)
        print(f"  ours: {inside:.2f} s per submission inside the grading processes, "
              f"{sum(out.merge_seconds) / max(len(out.merge_seconds), 1) * 1000:.0f} ms per "
              "result merged here")
        if phases:
            total = phases.pop("total")
            print(f"  ours, per submission, where the grading process's time goes (mean of "
                  f"{len(times['ours'])} x {n}):")
            for phase, secs in phases.items():
                print(f"    {phase:<40} {secs:6.2f} s")
            print(f"    {'JudgedExecute in all':<40} {total:6.2f} s")
            print(f"    {'nbgrader (import, overwrite, save grades), feedback':<40} "
                  f"{inside - total:6.2f} s")
        print(f"  kernel start + set-up imports: {overhead:.2f} s plain, {boxed:.2f} s "
              f"sandboxed (the sandbox adds {boxed - overhead:+.2f} s; ours starts the "
              "learner's kernel for every submission, the judge once per grading process)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
