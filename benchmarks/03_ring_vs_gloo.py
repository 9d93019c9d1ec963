"""Bus bandwidth of notebook 03's ring allreduce against dist.all_reduce (gloo), side by side.

    python benchmarks/03_ring_vs_gloo.py [--mib 64] [--world-size 4] [--repeats 10]

Takes ``ring_allreduce_`` from the solution notebook (solutions/03_allreduce, the cell
graded as ``ring_allreduce_``), starts ``--world-size`` processes with labkit.workers
(gloo on CPU), and in the same processes, on the same float32 buffer, alternates one
call of the ring and one of ``dist.all_reduce``, ``--repeats`` times each after a
warm-up. A call's time is the slowest rank's; the figure is the median over repeats,
and the quartiles of the per-pair ratios show how noisy the machine was.
Bus bandwidth = nbytes / time x 2(N-1)/N (the nccl-tests convention). Prints both
bandwidths and their ratio; the course's target is a ratio >= 0.85. On a shared
machine the absolute figures are noisy; the ratio, measured interleaved, less so.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grading.course import notebook_namespace  # noqa: E402

TARGET = 0.85


def solution_ring():
    """The notebook's ring_allreduce_, from its set-up and solution cells."""
    ns = notebook_namespace("03_allreduce", containing=("import labkit",), grade_ids=("ring_allreduce_",))
    return ns["ring_allreduce_"]


def side_by_side(rank, world_size, ring_fn, nbytes, repeats):
    """Per repeat: (ring seconds, all_reduce seconds) on this rank; checks the sums agree."""
    import time

    import torch
    import torch.distributed as dist

    x = torch.randn(nbytes // 4, generator=torch.Generator().manual_seed(rank))
    ring, ref = x.clone(), x.clone()
    ring_fn(ring)
    dist.all_reduce(ref)
    max_diff = (ring - ref).abs().max().item()
    buf = torch.zeros_like(x)  # zeros stay finite however often they are summed
    times = []
    for i in range(repeats + 1):  # the first pair warms up
        pair = {}
        order = [("ring", ring_fn), ("gloo", dist.all_reduce)]
        for name, fn in order if i % 2 else order[::-1]:
            dist.barrier()
            start = time.perf_counter()
            fn(buf)
            pair[name] = time.perf_counter() - start
        if i:
            times.append((pair["ring"], pair["gloo"]))
    return times, max_diff


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mib", type=int, default=64, help="buffer size in MiB (default 64)")
    parser.add_argument("--world-size", type=int, default=4, help="processes (default 4)")
    parser.add_argument("--repeats", type=int, default=20, help="timed calls of each (default 20)")
    args = parser.parse_args(argv)
    from labkit import workers

    nbytes, n = args.mib * 2**20, args.world_size
    per_rank = workers.run(side_by_side, n, solution_ring(), nbytes, args.repeats,
                           backend="gloo", timeout=600)
    ring_all = [max(r[0][i][0] for r in per_rank) for i in range(args.repeats)]
    gloo_all = [max(r[0][i][1] for r in per_rank) for i in range(args.repeats)]
    ring_t, gloo_t = statistics.median(ring_all), statistics.median(gloo_all)
    pair_ratios = [g / r for r, g in zip(ring_all, gloo_all)]
    q1, _, q3 = statistics.quantiles(pair_ratios, n=4) if len(pair_ratios) > 1 else (pair_ratios[0],) * 3
    bus = 2 * (n - 1) / n
    ring_bw, gloo_bw = bus * nbytes / ring_t / 1e9, bus * nbytes / gloo_t / 1e9
    max_diff = max(r[1] for r in per_rank)
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPU cores; "
          f"{n} processes, gloo, {args.mib} MiB float32, median of {args.repeats} interleaved calls")
    print(f"ring_allreduce_ (solution): {ring_t * 1e3:8.1f} ms  bus bandwidth {ring_bw:6.3f} GB/s")
    print(f"dist.all_reduce (gloo)    : {gloo_t * 1e3:8.1f} ms  bus bandwidth {gloo_bw:6.3f} GB/s")
    print(f"ratio ring / gloo: {ring_bw / gloo_bw:.2f} (target >= {TARGET}); per-pair ratios, "
          f"quartiles {q1:.2f} .. {q3:.2f}; max |ring - all_reduce| = {max_diff:.2e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
