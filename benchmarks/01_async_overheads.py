"""Front-end overhead and automatic parallelism, the figures 01_async_execution measures.

    python benchmarks/01_async_overheads.py [n_tiny] [chain_length]

Prints, for MXNet (where it imports), PyTorch on the CPU and PyTorch on a CUDA GPU (where
there is one): microseconds per tiny op (`y = x + 1` on 10 numbers) with a sync after each
op and with one sync at the end (median of 5 runs each); then two independent chains of
512x512 products, forced serial vs issued together (MXNet: on mx.cpu(0) and mx.cpu(1);
CUDA: on two streams), median of 5; then 01's section 8 on the CPU: ATen launches and
median time of a chain of 16 element-wise ops, eager, under torch.compile, and for 32
tensors one by one vs stacked. Each figure is measured on this machine; nothing is
quoted.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from labkit.devices import mxnet_status  # noqa: E402

N = 512


def per_op(op, sync, n: int, sync_each: bool) -> float:
    """Seconds per op of n ops, synced after each or once at the end."""
    sync()
    start = time.perf_counter()
    for _ in range(n):
        op()
        if sync_each:
            sync()
    sync()
    return (time.perf_counter() - start) / n


def median_of(run, sync, repeats: int = 5) -> float:
    """Median wall seconds of run(), synced before and after."""
    times = []
    for _ in range(repeats):
        sync()
        start = time.perf_counter()
        run()
        sync()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("n_tiny", nargs="?", type=int, default=5000,
                   help="tiny ops per timing (default 5000)")
    p.add_argument("chain_length", nargs="?", type=int, default=24,
                   help="matrix products per chain (default 24)")
    args = p.parse_args(argv)
    if args.n_tiny < 1 or args.chain_length < 1:
        p.error(f"n_tiny and chain_length must be positive, got {args.n_tiny} {args.chain_length}")
    n_tiny, k = args.n_tiny, args.chain_length
    have_mxnet, info = mxnet_status()
    print(f"PyTorch {torch.__version__}; MXNet: {info}")
    rows = {}
    if have_mxnet:
        import mxnet as mx

        xm = mx.nd.ones((10,))
        rows["MXNet CPU engine"] = (lambda: xm + 1, mx.nd.waitall)
    xt = torch.ones(10)
    rows["PyTorch CPU"] = (lambda: xt + 1, lambda: None)
    if torch.cuda.is_available():
        xg = torch.ones(10, device="cuda")
        rows[f"PyTorch {torch.cuda.get_device_name()}"] = (lambda: xg + 1, torch.cuda.synchronize)
    print(f"\n{n_tiny} tiny ops (y = x + 1 on 10 numbers), median of 5 runs, us per op:")
    for name, (op, sync) in rows.items():
        per_op(op, sync, 100, False)
        each = statistics.median(per_op(op, sync, n_tiny, True) for _ in range(5))
        once = statistics.median(per_op(op, sync, n_tiny, False) for _ in range(5))
        print(f"  {name:<32} sync after each {each * 1e6:7.1f}   one sync at the end {once * 1e6:7.1f}"
              f"   ratio {each / once:5.2f}")

    print(f"\ntwo independent chains of {k} {N}x{N} products, median of 5, ms:")
    if have_mxnet:
        x0 = mx.nd.random.uniform(shape=(N, N), ctx=mx.cpu(0))
        x1 = mx.nd.random.uniform(shape=(N, N), ctx=mx.cpu(1))
        w0, w1 = x0 / x0.sum(axis=1, keepdims=True), x1 / x1.sum(axis=1, keepdims=True)

        def chain(y, w):
            for _ in range(k):
                y = mx.nd.dot(y, w)
            return y

        serial = median_of(lambda: (chain(x0, w0).wait_to_read(), chain(x1, w1).wait_to_read()),
                           mx.nd.waitall)
        both = median_of(lambda: (chain(x0, w0), chain(x1, w1)), mx.nd.waitall)
        print(f"  MXNet mx.cpu(0) + mx.cpu(1): forced serial {serial * 1e3:8.1f}   concurrent "
              f"{both * 1e3:8.1f}   speed-up {serial / both:.2f}x")
    if torch.cuda.is_available():
        side = torch.cuda.Stream()
        g0, g1 = torch.rand(N, N, device="cuda"), torch.rand(N, N, device="cuda")
        v0, v1 = g0 / g0.sum(1, keepdim=True), g1 / g1.sum(1, keepdim=True)

        def tchain(y, w):
            for _ in range(k):
                y = y @ w
            return y

        def two_streams():
            side.wait_stream(torch.cuda.current_stream())
            tchain(g0, v0)
            with torch.cuda.stream(side):
                tchain(g1, v1)

        one = median_of(lambda: (tchain(g0, v0), tchain(g1, v1)), torch.cuda.synchronize)
        two = median_of(two_streams, torch.cuda.synchronize)
        print(f"  CUDA one stream vs two streams: {one * 1e3:8.2f} vs {two * 1e3:8.2f}"
              f"   speed-up {one / two:.2f}x")
    if not have_mxnet and not torch.cuda.is_available():
        print("  neither MXNet nor a CUDA GPU here: nothing runs side by side to measure")
    front_end_lab()
    return 0


def chain_ops(y, k: int):
    """k element-wise ops in a row (the chain of 01's section 8)."""
    for i in range(k):
        y = y * 0.5 if i % 2 == 0 else y + 0.25
    return y


def front_end_lab(k: int = 16, n: int = 1000, m: int = 32) -> None:
    """01's section 8 on the CPU: top-level ATen launches (torch.profiler) and median time
    (torch.utils.benchmark.Timer) of k element-wise ops on n elements, eager, under
    torch.compile (Inductor), and for m tensors one by one vs stacked."""
    import os

    from torch.profiler import ProfilerActivity, profile
    from torch.utils.benchmark import Timer

    def launches(fn):
        stderr, devnull = os.dup(2), os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 2)               # Kineto logs each profile's start and stop on stderr
        try:
            with profile(activities=[ProfilerActivity.CPU]) as prof:
                fn()
        finally:
            os.dup2(stderr, 2)
            os.close(stderr), os.close(devnull)
        return sum(1 for e in prof.events() if e.name.startswith("aten::")
                   and (e.cpu_parent is None or not e.cpu_parent.name.startswith("aten::")))

    x = torch.rand(n)
    tensors = [torch.rand(n) for _ in range(m)]
    stacked = torch.stack(tensors)
    start = time.perf_counter()
    compiled = torch.compile(chain_ops)
    compiled(x, k)
    compile_s = time.perf_counter() - start
    ways = {f"eager, {k} ops on {n}": lambda: chain_ops(x, k),
            f"torch.compile, {k} ops on {n}": lambda: compiled(x, k),
            f"eager, {m} tensors one by one": lambda: [chain_ops(t, k) for t in tensors],
            f"eager, {m} tensors stacked": lambda: chain_ops(stacked, k)}
    print(f"\nPyTorch {torch.__version__} CPU front end ({torch.get_num_threads()} threads; "
          f"torch.compile's first call {compile_s:.1f} s):")
    for name, fn in ways.items():
        seconds = Timer("fn()", globals={"fn": fn}).blocked_autorange(min_run_time=1.0).median
        print(f"  {name:<32} ATen launches {launches(fn):5d}   median {seconds * 1e6:9.1f} us")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
