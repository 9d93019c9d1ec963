"""Throughput of a matmul-heavy block in FP32, TF32 (CUDA only), BF16 and FP16.

    python benchmarks/05_precision_throughput.py [--threads N] [--syncs]

Times gelu(X @ W1) @ W2 (X: n x d, W1: d x 4d, W2: 4d x d, as in a transformer's
feed-forward layer) with all tensors in one format, on the first CUDA GPU if there is one,
else on the CPU, and prints GFLOP/s and the ratio to FP32, measured side by side in one
run, timed with CUDA events on a GPU. On a GPU it also times a whole training step (4 blocks
of Linear 4096-16384-4096 with GELU, batch 8192, AdamW) in FP32, TF32, BF16 autocast and FP16
autocast with GradScaler. The device is named in the output (GPU name, or CPU model and its
low-precision instruction flags) so figures can be quoted with it.

--syncs times only how gradients are unscaled and checked for inf/NaN, with 300 gradient
tensors: bool(isfinite(g).all()) per tensor (one host sync each, as a simple
unscale_grads_ does) against GradScaler's unscale_, step and update (one fused kernel, one
.item() per step), wall-clock per step.
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


def seconds_per_call(fn, device: torch.device, reps: int) -> float:
    """Best of three timed rounds of reps calls (after a warm-up round): CUDA events on a GPU."""
    best = float("inf")
    for _ in range(4):  # the first round warms up
        if device.type == "cuda":
            start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            for _ in range(reps):
                fn()
            stop.record()
            stop.synchronize()
            seconds = start.elapsed_time(stop) / 1e3
        else:
            start = time.perf_counter()
            for _ in range(reps):
                fn()
            seconds = time.perf_counter() - start
        best = min(best, seconds)
    return best / reps


def block_gflops(dtype: torch.dtype, device: torch.device, n: int, d: int, reps: int,
                 tf32: bool = False) -> float:
    """GFLOP/s of gelu(X @ W1) @ W2 in dtype; best of three timed rounds of reps calls."""
    gen = torch.Generator().manual_seed(0)
    X, W1, W2 = (torch.randn(shape, generator=gen).div(8).to(device, dtype)
                 for shape in ((n, d), (d, 4 * d), (4 * d, d)))
    previous = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = tf32
    try:
        seconds = seconds_per_call(lambda: F.gelu(X @ W1) @ W2, device, reps)
    finally:
        torch.backends.cuda.matmul.allow_tf32 = previous
    return 16 * n * d * d / seconds / 1e9


def training_step_ms(mode: str, device: torch.device, batch: int, blocks: int, width: int,
                     reps: int) -> float:
    """Milliseconds per AdamW step of blocks x (Linear width-4width, GELU, Linear 4width-width)."""
    torch.manual_seed(0)
    layers = []
    for _ in range(blocks):
        layers += [torch.nn.Linear(width, 4 * width), torch.nn.GELU(), torch.nn.Linear(4 * width, width)]
    model = torch.nn.Sequential(*layers).to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    X, target = torch.randn(batch, width, device=device), torch.randn(batch, width, device=device)
    dtype = {"BF16 autocast": torch.bfloat16, "FP16 autocast + GradScaler": torch.float16}.get(mode)
    scaler = torch.amp.GradScaler(device.type, enabled=dtype == torch.float16)

    def step():
        opt.zero_grad(set_to_none=True)
        with torch.autocast(device.type, dtype=dtype or torch.bfloat16, enabled=dtype is not None):
            loss = F.mse_loss(model(X), target)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()

    previous = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = mode == "TF32"
    try:
        return seconds_per_call(step, device, reps) * 1e3
    finally:
        torch.backends.cuda.matmul.allow_tf32 = previous


def unscale_check_ms(device: torch.device, tensors: int = 300, size: int = 4096,
                     reps: int = 20) -> dict[str, float]:
    """Wall-clock ms per step to unscale and check `tensors` gradients, two ways (best of 3)."""
    gen = torch.Generator().manual_seed(0)
    params = [torch.nn.Parameter(torch.zeros(size, device=device)) for _ in range(tensors)]
    for p in params:
        p.grad = torch.randn(size, generator=gen).to(device)
    opt = torch.optim.SGD(params, lr=0.0)
    scaler = torch.amp.GradScaler(device.type, init_scale=1.0, growth_interval=10**9)
    scaler.scale(torch.ones((), device=device))  # creates its scale tensor, as a first backward would

    def per_tensor():
        found_inf = False
        for p in params:
            p.grad.div_(1.0)
            if not bool(torch.isfinite(p.grad).all()):  # waits for the device, copies one value
                found_inf = True
        return found_inf

    def gradscaler():
        scaler.unscale_(opt)
        scaler.step(opt)  # reads the overflow flag with .item(), then steps (lr 0)
        scaler.update()

    def best_ms(fn):
        fn()
        best = float("inf")
        for _ in range(3):
            if device.type == "cuda":
                torch.cuda.synchronize(device)
            start = time.perf_counter()
            for _ in range(reps):
                fn()
            if device.type == "cuda":
                torch.cuda.synchronize(device)
            best = min(best, (time.perf_counter() - start) / reps * 1e3)
        return best

    return {"bool() per tensor": best_ms(per_tensor), "GradScaler unscale_+step+update": best_ms(gradscaler)}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=None, help="CPU threads (default: torch's)")
    parser.add_argument("--syncs", action="store_true",
                        help="time only the unscale-and-check of 300 gradients, per tensor vs GradScaler")
    args = parser.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    if args.syncs:
        device = torch.device("cuda", 0) if torch.cuda.is_available() else torch.device("cpu")
        name = (f"{torch.cuda.get_device_name(device)} (CUDA {torch.version.cuda})" if device.type == "cuda"
                else f"{cpu_description()} (no device to wait for)")
        print(f"device: {name}; torch {torch.__version__}")
        print("unscale and check 300 gradients of 4096 FP32 values, ms per step (best of 3 rounds of 20):")
        for label, ms in unscale_check_ms(device).items():
            print(f"  {label:<34} {ms:8.3f} ms")
        return 0
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
    if device.type == "cuda":
        batch, blocks, width = 8192, 4, 4096
        print(f"training step: {blocks} x (Linear {width}-{4 * width}, GELU, Linear {4 * width}-{width}), "
              f"batch {batch}, AdamW; best of 3 rounds of 5")
        flop = 3 * 2 * batch * blocks * 2 * width * 4 * width
        step_ms = {mode: training_step_ms(mode, device, batch, blocks, width, 5)
                   for mode in ("FP32", "TF32", "BF16 autocast", "FP16 autocast + GradScaler")}
        for mode, ms in step_ms.items():
            print(f"{mode:<28} {ms:8.1f} ms  ({step_ms['FP32'] / ms:.1f}x FP32, {flop / ms / 1e9:.0f} TFLOP/s)")
    else:
        print("no CUDA GPU: the GPU-scale training step is skipped")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
