"""How often each wrong answer in tests/variants loses: its catch rate over grading seeds.

The suite grades the variants under one fixed seed (tests/harness.py, VARIANT_SEED), so a
variant that loses only on some draws of the hidden tests' generated inputs may pass the suite
and still score full for some learner. This grades every variant of each notebook under SEEDS
fresh seeds, with the suite's settings otherwise, and prints each variant's rate; a wrong
answer must lose under every seed, a correct one written another way score full under every
seed.

    make catch-rate [NB=03_allreduce] [SEEDS=20]
    python tests/catch_rate.py 03_allreduce --seed S   one seed's verdicts

Exit status 1 when a variant's rate is not SEEDS/SEEDS.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

if __package__ in (None, ""):  # run as a script: the repository's root on the path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from labkit.judge.reset import SEED_ENV# noqa: E402
from tests.harness import VARIANTS, chosen_notebooks, grade_all, load_variants  # noqa: E402


def verdicts(assignment: str, seed: int, root: Path = VARIANTS) -> dict[str, bool]:
    """variant name -> whether it scored as it should under this seed (a wrong one lost a
    point where it can reach, a correct one lost none)."""
    found = load_variants(assignment, root)
    with tempfile.TemporaryDirectory(prefix=f"catch-{assignment}-") as tmp:
        run = grade_all(assignment, Path(tmp), env={SEED_ENV: str(seed)}, variants=found,
                        solution_and_blank=False)
        out = {}
        for v in found:
            student, reach, _ = run.reach(v)
            scores = run.scores.get(student)
            if not scores or not run.ran_from_the_start(student):
                out[v.name] = False
                continue
            lost = any(s < t for c, (s, t) in scores.items() if c in reach)
            out[v.name] = not lost if v.full else lost
        return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="*", help="assignments (default: all of solutions/)")
    parser.add_argument("--seeds", type=int, default=20, help="grading seeds per notebook")
    parser.add_argument("--seed", type=int, default=None, help="grade under this seed alone")
    parser.add_argument("--from", dest="root", type=Path, default=VARIANTS,
                        help="a folder of <notebook>/<variant>.py other than tests/variants "
                             "(new wrong answers, before they join the corpus)")
    args = parser.parse_args(argv)
    chosen = chosen_notebooks(parser, args.notebooks)
    if args.seeds < 1:
        parser.error("--seeds takes a positive integer")
    rng = random.SystemRandom()
    short = 0
    for assignment in chosen:
        start = time.monotonic()
        seeds = [args.seed] if args.seed is not None else [
            rng.randrange(10**8) for _ in range(args.seeds)]
        right: dict[str, int] = defaultdict(int)
        graded: dict[str, int] = defaultdict(int)   # a variant added during the run has fewer
        missed: dict[str, list[int]] = defaultdict(list)
        for k, seed in enumerate(seeds, 1):
            began = time.monotonic()
            got = verdicts(assignment, seed, args.root)
            for name, ok in got.items():
                right[name] += ok
                graded[name] += 1
                if not ok:
                    missed[name].append(seed)
            wrong = sorted(n for n, ok in got.items() if not ok)
            print(f"  seed {k}/{len(seeds)} ({seed}): {len(got) - len(wrong)} of {len(got)} as they should"
                  + (f"; not: {', '.join(wrong)}" if wrong else "")
                  + f" ({time.monotonic() - began:.0f} s)", flush=True)
        names = sorted(right)
        full = sum(right[n] == len(seeds) for n in names)
        print(f"{assignment}: {full} of {len(names)} variants scored as they should under all "
              f"{len(seeds)} seeds ({time.monotonic() - start:.0f} s)", flush=True)
        for name in names:
            if right[name] < len(seeds):
                short += 1
                again = (f"; again: python tests/catch_rate.py {assignment} --seed {missed[name][0]}"
                         + (f" --from {args.root}" if args.root != VARIANTS else "")) if missed[name] else \
                    " (added to the folder during the run)"
                print(f"  {name}: {right[name]}/{len(seeds)}, graded under {graded[name]}{again}")
    return 1 if short else 0


if __name__ == "__main__":
    sys.exit(main())
