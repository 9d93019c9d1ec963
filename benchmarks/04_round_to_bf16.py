"""The solution's round_to_bf16 (integer bit operations) vs torch's own cast, side by side.

    python benchmarks/04_round_to_bf16.py [log2_n]

Takes round_to_bf16 from the solution notebook (the one source), runs it and
``x.to(torch.bfloat16).float()`` alternately on the same 2^24 random float32 values, and
prints the best time of each and their ratio. Target from issue 6: ratio <= 4x.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from grading.course import notebook_namespace  # noqa: E402

TARGET = 4.0


def best_seconds(fn, x: torch.Tensor, repeats: int) -> float:
    """Best wall time of fn(x) over repeats."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        fn(x)
        best = min(best, time.perf_counter() - start)
    return best


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("log2_n", nargs="?", type=int, default=24,
                   help="values timed: 2**log2_n (default 24)")
    log2_n = p.parse_args(argv).log2_n
    if not 1 <= log2_n <= 30:
        p.error(f"log2_n must be between 1 and 30, got {log2_n}")
    round_to_bf16 = notebook_namespace("04_number_formats", containing=("import labkit",),
                                       grade_ids=("round_to_bf16",))["round_to_bf16"]
    x = torch.randn(1 << log2_n, generator=torch.Generator().manual_seed(0))
    expected = x.to(torch.bfloat16).float()
    if not torch.equal(round_to_bf16(x), expected):
        print("round_to_bf16 does not match torch's cast on the benchmark input", file=sys.stderr)
        return 1

    def cast(t):
        return t.to(torch.bfloat16).float()

    ours, theirs = float("inf"), float("inf")
    for _ in range(5):  # alternate, so both see the same machine load
        ours = min(ours, best_seconds(round_to_bf16, x, 2))
        theirs = min(theirs, best_seconds(cast, x, 2))
    ratio = ours / theirs
    print(f"2^{log2_n} float32 values, {torch.get_num_threads()} threads, torch {torch.__version__}, "
          "best of 10 each, alternating")
    print(f"round_to_bf16 (solution, integer ops): {ours * 1e3:8.2f} ms")
    print(f"x.to(torch.bfloat16).float():          {theirs * 1e3:8.2f} ms")
    print(f"ratio: {ratio:.2f}x (target <= {TARGET:g}x): {'ok' if ratio <= TARGET else 'OVER TARGET'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
