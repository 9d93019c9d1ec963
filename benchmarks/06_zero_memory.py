"""What a rank of notebook 06's ZeroAdam keeps between steps, and FSDPBlock's parameter memory at its peak, measured.

    python benchmarks/06_zero_memory.py [--width 1024] [--steps 2] [--batch 4] [--fsdp-width 256] [--fsdp-depth 16]

Takes ``make_model``, ``zero_train_`` (with ``ZeroAdam``) and ``step_memory`` from the solution
notebook (solutions/06_sharded_data_parallel) and runs ZeRO-1, -2 and -3 with Adam on 2 gloo
processes (labkit.judge.pool), on the notebook's float64 model at ``--width``. Per stage,
after a warm-up run: each rank's resident memory (RssAnon + RssShmem from /proc) with and without
what ``zero_train_`` returned, against ``step_memory``'s prediction (the course's target: within
10%). Not measured for ZeroAdam: the peak during a step (its stage 3 gathers the whole model
for forward and backward, so its peak holds the full parameters).

Then FSDP (Exercise 5's ``FSDPBlock``, ``make_block``) on ``--fsdp-depth`` blocks of
``--fsdp-width``: the parameter shards a rank keeps once the model is built (measured from
outside, as above), and how far one forward pass takes its resident memory above that
(``VmHWM`` after resetting it through /proc/self/clear_refs, read in the worker), less the
receive buffer gloo's all-gather allocates (one all-gather of the largest block, measured the
same way). That is the parameter memory at the peak, against 1/N of the model plus one block
(the course's target: within 10%).
"""

from __future__ import annotations

import argparse
import functools
import os
import platform
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grading.course import notebook_namespace  # noqa: E402

TARGET = 0.10


def solution_parts() -> dict:
    return notebook_namespace("06_sharded_data_parallel", containing=("import labkit", "def make_model", "def make_block"),
                              grade_ids=("zero_predictions", "zero_adam", "fsdp_blocks"))


def _status(field: str) -> int:
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith(field + ":")) * 1024


def _rise(fn) -> int:
    """How far fn() takes this process's resident memory above where it stands, at the highest."""
    before = _status("VmRSS")
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
    fn()
    return _status("VmHWM") - before


def build_blocks(FSDPBlock, make_block, width, depth):
    """A worker: the sharded model, kept (returned) for the meter."""
    import torch

    return torch.nn.Sequential(*(FSDPBlock(make_block(0, i, width)) for i in range(depth)))


def forward_peak(FSDPBlock, make_block, width, depth, x, out):
    """A worker: the rise of one forward pass, and of one gloo all-gather of the largest block alone."""
    import ctypes
    import gc

    import torch
    import torch.distributed as dist

    model = build_blocks(FSDPBlock, make_block, width, depth)
    gc.collect()
    ctypes.CDLL("libc.so.6").malloc_trim(0)
    with torch.no_grad():
        model(x)  # once first: one-off allocations
        out["forward"] = _rise(lambda: model(x))
    shard = max((blk.param_shard for blk in model), key=len)
    full = torch.zeros(len(shard) * dist.get_world_size(), dtype=shard.dtype)
    dist.all_gather_single(full, shard)
    out["all_gather"] = _rise(lambda: dist.all_gather_single(full, shard))


def fsdp(meter, ns, width: int, depth: int) -> None:
    import torch

    sizes = [sum(p.numel() for p in ns["make_block"](0, i, width).parameters()) for i in range(depth)]
    shards, block = sum(-(-n // 2) for n in sizes) * 8, max(sizes) * 8
    classes = (ns["FSDPBlock"], ns["make_block"])  # bound to the workers' functions: arguments go back and forth
    kept, _ = meter.keeps(functools.partial(build_blocks, *classes), [(width, depth)] * 2)
    x = torch.randn(4, width, dtype=torch.float64)
    reports = meter.pool.call(functools.partial(forward_peak, *classes), [(width, depth, x, {})] * 2)
    meter.pool.release()
    out = reports[0]["args"][3]
    measured = kept[0] + out["forward"] - out["all_gather"]
    predicted = shards + block
    print(f"FSDP (Exercise 5), {depth} blocks of width {width} ({sum(sizes) * 8 / 2**20:.2f} MiB, the largest "
          f"{block / 2**20:.2f} MiB), 2 ranks; rank 0:")
    print(f"  parameter shards kept once built: {kept[0] / 2**20:.2f} MiB (1/2 of the model: {shards / 2**20:.2f})")
    print(f"  one forward pass: +{out['forward'] / 2**20:.2f} MiB at its peak, of which gloo's all-gather receive "
          f"buffer {out['all_gather'] / 2**20:.2f} MiB (measured alone)")
    off = abs(measured - predicted) / predicted
    print(f"  parameter memory at the peak: {measured / 2**20:.2f} MiB against 1/N of the model + one block "
          f"{predicted / 2**20:.2f} MiB: {off:.1%} off (target <= {TARGET:.0%})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--width", type=int, default=1024)
    parser.add_argument("--steps", type=int, default=2)
    parser.add_argument("--batch", type=int, default=4)
    parser.add_argument("--fsdp-width", type=int, default=256)
    parser.add_argument("--fsdp-depth", type=int, default=16)
    args = parser.parse_args()

    import torch

    from labkit.judge.traffic import Meter
    from labkit.judge.pool import Pool

    ns = solution_parts()
    start = [p.detach().clone() for p in ns["make_model"](width=args.width).parameters()]
    numel = sum(p.numel() for p in start)
    g = torch.Generator().manual_seed(0)
    X = [torch.randn(args.steps, args.batch, 8, generator=g, dtype=torch.float64) for _ in range(2)]
    y = [torch.randint(0, 3, (args.steps, args.batch), generator=g) for _ in range(2)]
    pool = Pool(2)
    try:
        pool.group(2)
        meter = Meter(pool)
        print(f"torch {torch.__version__}, {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
              f"2 gloo processes, notebook 06's model at width {args.width}: {numel} float64 parameters "
              f"({numel * 8 / 2**20:.2f} MiB), Adam, {args.steps} steps of batch {args.batch}; rank 0:")
        worst = 0.0
        for stage in (1, 2, 3):
            kept, _ = meter.keeps(ns["zero_train_"], [(0, args.width, X[r], y[r], 1e-3, stage, {}) for r in range(2)])
            predicted = sum(ns["step_memory"](numel, 2, stage, torch.float64, "adam").values())
            off = abs(kept[0] - predicted) / predicted
            worst = max(worst, off)
            print(f"  ZeRO-{stage}: keeps {kept[0] / 2**20:7.2f} MiB between steps (rank 1: {kept[1] / 2**20:.2f}), "
                  f"step_memory {predicted / 2**20:7.2f} MiB: {off:.1%} off")
        print(f"largest difference from step_memory: {worst:.1%} (target <= {TARGET:.0%})")
        fsdp(meter, ns, args.fsdp_width, args.fsdp_depth)
    finally:
        pool.close()


if __name__ == "__main__":
    main()
