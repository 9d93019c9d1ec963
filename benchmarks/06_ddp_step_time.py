"""Step time of notebook 06's BucketedDDP against torch's DistributedDataParallel, side by side.

    python benchmarks/06_ddp_step_time.py [--world-size 2] [--blocks 10] [--steps 20] [--batch 64] [--cap 1000]

Takes ``make_model``, ``bucket_plan`` and ``BucketedDDP`` from the solution notebook
(solutions/06_sharded_data_parallel), starts ``--world-size`` gloo processes with
labkit.workers, and in the same processes, on the notebook's float64 model, alternates a
block of ``--steps`` SGD steps under BucketedDDP with a block under torch's DDP (same bucket
cap), ``--blocks`` times each after a warm-up. A block's time is its slowest rank's; the
figure is the median per step over blocks. Prints both and their ratio (the course's target:
BucketedDDP within 1.3x of DDP). On a shared machine absolute figures are noisy; the ratio,
measured interleaved, less so.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grading.course import notebook_namespace  # noqa: E402

TARGET = 1.3


def solution_parts():
    """The notebook's model and BucketedDDP, from its set-up and solution cells."""
    ns = notebook_namespace("06_sharded_data_parallel", containing=("import labkit", "def make_model"),
                            grade_ids=("bucket_plan", "bucketed_ddp"))
    return ns["make_model"], ns["BucketedDDP"]


def side_by_side(rank, world_size, make_model, bucketed, blocks, steps, batch, cap):
    """Per block: (BucketedDDP seconds, DDP seconds) of `steps` steps on this rank."""
    import torch
    from torch.nn.parallel import DistributedDataParallel as DDP

    g = torch.Generator().manual_seed(rank)
    X = torch.randn(steps, batch, 8, generator=g, dtype=torch.float64)
    y = torch.randint(0, 3, (steps, batch), generator=g)
    mine_model, lib_model = make_model(), make_model()
    mine = bucketed(mine_model, cap)
    lib = DDP(lib_model, bucket_cap_mb=cap / 2**20)
    opts = torch.optim.SGD(mine_model.parameters(), lr=0.1), torch.optim.SGD(lib.parameters(), lr=0.1)

    def block(which):
        model, opt = (mine_model, opts[0]) if which == 0 else (lib, opts[1])
        torch.distributed.barrier()
        start = time.perf_counter()
        for s in range(steps):
            opt.zero_grad()
            torch.nn.functional.cross_entropy(model(X[s]), y[s]).backward()
            if which == 0:
                mine.finish()
            opt.step()
        return time.perf_counter() - start

    block(0), block(1)  # warm-up (DDP's first step builds its buckets)
    return [(block(0), block(1)) for _ in range(blocks)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--world-size", type=int, default=2)
    parser.add_argument("--blocks", type=int, default=10)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--cap", type=int, default=1000, help="bucket cap in bytes")
    args = parser.parse_args()

    import torch

    import labkit.workers

    make_model, bucketed = solution_parts()
    per_rank = labkit.workers.run(side_by_side, args.world_size, make_model, bucketed, args.blocks, args.steps,
                                  args.batch, args.cap, backend="gloo", timeout=600)
    blocks = [tuple(max(r[b][k] for r in per_rank) for k in (0, 1)) for b in range(args.blocks)]
    mine = statistics.median(b[0] for b in blocks) / args.steps
    lib = statistics.median(b[1] for b in blocks) / args.steps
    ratios = sorted(b[0] / b[1] for b in blocks)
    q1, q3 = ratios[len(ratios) // 4], ratios[(3 * len(ratios)) // 4]
    print(f"torch {torch.__version__}, {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"{args.world_size} gloo processes, float64 model of notebook 06, batch {args.batch} per rank, "
          f"cap {args.cap} bytes")
    print(f"BucketedDDP {mine * 1e3:.3f} ms/step, DistributedDataParallel {lib * 1e3:.3f} ms/step, "
          f"ratio {mine / lib:.2f} (quartiles of per-block ratios {q1:.2f}..{q3:.2f}; target <= {TARGET})")


if __name__ == "__main__":
    main()
