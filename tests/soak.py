"""Soak the hidden tests: a correct answer must never lose a point, whatever the draw.

Hidden tests draw their inputs at grading time (Hypothesis), a few per test, from a new
seed per class. A check that holds for the drawn examples the suite sees may still fail a
correct answer on a rare draw (a tolerance too tight where float32 rounding compounds).
This grades each notebook's solution through the trusted path with SCALE times the
examples every generated test asks for, under SEEDS seeds (or the one COURSE_GRADING_SEED
names), and prints each cell the
solution lost with the judge's message and the command that reproduces it.

    make soak [NB=03_allreduce] [SCALE=10] [SEEDS=2] [JOBS=2]

Exit status 1 when the solution lost a point anywhere.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

if __package__ in (None, ""):  # run as a script: the repository's root on the path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from labkit.judge.reset import EXAMPLES_SCALE_ENV, SEED_ENV# noqa: E402
from tests.harness import chosen_notebooks, error_names, grade_all  # noqa: E402


def soak(assignment: str, seed: int, scale: int) -> tuple[str, int, float, list[str]]:
    """Grade the solution once; the cells it lost, each with the judge's message."""
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix=f"soak-{assignment}-") as tmp:
        run = grade_all(assignment, Path(tmp), env={SEED_ENV: str(seed), EXAMPLES_SCALE_ENV: str(scale)},
                        variants=False, timeout=3600)
        if "solution" not in run.scores:
            return assignment, seed, time.monotonic() - start, [f"not graded:\n{run.log[-2000:]}"]
        lost = sorted(c for c, (score, top) in run.scores["solution"].items() if score != top)
        problems = []
        if lost:
            nb = run.autograded("solution")
            ids = {i: c.metadata.get("nbgrader", {}).get("grade_id") for i, c in enumerate(nb.cells)}
            messages = {ids[i]: f"{name}: {message}" for i, name, message in error_names(nb)}
            problems = [f"{cell}: {messages.get(cell, '(no error output)')[:600]}" for cell in lost]
    return assignment, seed, time.monotonic() - start, problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="*", help="assignments (default: all of solutions/)")
    parser.add_argument("--scale", type=int, default=10, help="times the examples each test asks for")
    parser.add_argument("--seeds", type=int, default=2, help="seeds per notebook")
    parser.add_argument("--jobs", type=int, default=2, help="gradings at once")
    args = parser.parse_args(argv)
    chosen = chosen_notebooks(parser, args.notebooks)
    if args.scale < 1 or args.seeds < 1 or args.jobs < 1:
        parser.error("--scale, --seeds and --jobs take positive integers")
    rng = random.SystemRandom()
    fixed = os.environ.get(SEED_ENV, "")
    seeds = [int(fixed)] if fixed.isdigit() else [rng.randrange(10**8) for _ in range(args.seeds)]
    work = [(a, seed, args.scale) for a in chosen for seed in seeds]
    failed = 0
    with ThreadPoolExecutor(args.jobs) as pool:
        for assignment, seed, seconds, problems in pool.map(lambda w: soak(*w), work):
            print(f"{assignment}  seed {seed}  x{args.scale}  {seconds:.0f} s  "
                  f"{'lost points' if problems else 'full marks'}", flush=True)
            for line in problems:
                print(f"    {line}")
            if problems:
                failed += 1
                print(f"    again: {SEED_ENV}={seed} make soak NB={assignment} SCALE={args.scale}")
    print(f"{failed} of {len(work)} gradings lost points" if failed else
          f"the solution scored full marks in all {len(work)} gradings")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
