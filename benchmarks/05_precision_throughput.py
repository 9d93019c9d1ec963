"""Throughput of a matmul-heavy block in FP32, TF32 (CUDA only), BF16 and FP16.

    python benchmarks/05_precision_throughput.py [--threads N]

Times gelu(X @ W1) @ W2 (X: n x d, W1: d x 4d, W2: 4d x d, as in a transformer's
feed-forward layer) with all tensors in one format, on the first CUDA GPU if there is one,
else on the CPU, and prints GFLOP/s and the ratio to FP32, measured side by side in one
run. The device is named in the output (GPU name, or CPU model and its low-precision
instruction flags) so figures can be quoted with it.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time

import torch
import torch.nn.functional as F


def cpu_description() -> str:
    """CPU model name and its low-precision instruction flags (Linux /proc/cpuinfo)."""
    try:
        text = open("/proc/cpuinfo").read()
    except OSError:
        return platform.processor() or "unknown CPU"
    model = next((ln.split(":", 1)[1].strip() for ln in text.splitlines()
                  if ln.startswith("model name")), "unknown CPU")
    flags = [f for f in ("avx512_bf16", "amx_bf16", "avx512_fp16", "amx_fp16") if f" {f}" in text]
    return f"{model} (low-precision flags: {', '.join(flags) or 'none'})"


def block_gflops(dtype: torch.dtype, device: torch.device, n: int, d: int, reps: int,
                 tf32: bool = False) -> float:
    """GFLOP/s of gelu(X @ W1) @ W2 in dtype; best of three timed rounds of reps calls."""
    gen = torch.Generator().manual_seed(0)
    X, W1, W2 = (torch.randn(shape, generator=gen).div(8).to(device, dtype)
                 for shape in ((n, d), (d, 4 * d), (4 * d, d)))
    if device.type == "cuda":
        torch.backends.cuda.matmul.allow_tf32 = tf32
        sync = lambda: torch.cuda.synchronize(device)  # noqa: E731
    else:
        sync = lambda: None  # noqa: E731
    best = float("inf")
    for _ in range(4):  # the first round warms up
        sync()
        start = time.perf_counter()
        for _ in range(reps):
            F.gelu(X @ W1) @ W2
        sync()
        best = min(best, time.perf_counter() - start)
    if device.type == "cuda":
        torch.backends.cuda.matmul.allow_tf32 = False
    return 16 * n * d * d * reps / best / 1e9


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=None, help="CPU threads (default: torch's)")
    args = parser.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    if torch.cuda.is_available():
        device = torch.device("cuda", 0)
        name = f"{torch.cuda.get_device_name(device)} (CUDA {torch.version.cuda})"
        n, d, reps = 8192, 4096, 20
        formats = [("FP32", torch.float32, False), ("TF32", torch.float32, True),
                   ("BF16", torch.bfloat16, False), ("FP16", torch.float16, False)]
    else:
        device = torch.device("cpu")
        name = f"{cpu_description()}, {torch.get_num_threads()} torch threads"
        n, d, reps = 1024, 512, 5
        formats = [("FP32", torch.float32, False), ("BF16", torch.bfloat16, False),
                   ("FP16", torch.float16, False)]
        print("no CUDA GPU: TF32 is a CUDA tensor-core mode, skipped")
    print(f"device: {name}; torch {torch.__version__}")
    print(f"block: gelu(X @ W1) @ W2, X {n}x{d}, W1 {d}x{4 * d}, W2 {4 * d}x{d}; best of 3 rounds of {reps}")
    speed = {label: block_gflops(dt, device, n, d, reps, tf32) for label, dt, tf32 in formats}
    for label, gflops in speed.items():
        print(f"{label}: {gflops:10.1f} GFLOP/s  ({gflops / speed['FP32']:.2f}x FP32)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
