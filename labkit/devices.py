"""Devices for both frameworks: GPUs where present, else CPU; and an environment report."""

from __future__ import annotations

import os
import platform
import sys
from functools import lru_cache


@lru_cache(maxsize=1)
def mxnet_status() -> tuple[bool, str]:
    """(True, version) if MXNet imports here, else (False, one line saying why)."""
    try:
        import mxnet as mx
    except Exception as exc:  # ImportError, or numpy ABI errors on numpy >= 1.24
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return False, (
            f"MXNet is not available here ({type(exc).__name__}: {reason}); it needs "
            "Python 3.11 on Linux x86-64 with numpy<1.24, so MXNet cells are skipped."
        )
    return True, mx.__version__


def has_mxnet() -> bool:
    """True if MXNet can be imported in this environment."""
    return mxnet_status()[0]


def require_mxnet():
    """Return the mxnet module, or raise a RuntimeError that says why it is unavailable."""
    ok, detail = mxnet_status()
    if not ok:
        raise RuntimeError(detail)
    import mxnet as mx

    return mx


def num_gpus(framework: str = "torch") -> int:
    """Number of GPUs visible to ``framework`` ("torch" or "mxnet")."""
    _check_framework(framework)
    if framework == "torch":
        import torch

        return torch.cuda.device_count() if torch.cuda.is_available() else 0
    if not has_mxnet():
        return 0
    import mxnet as mx

    try:
        return mx.context.num_gpus()
    except Exception:
        return 0


def try_gpu(i: int = 0, framework: str = "torch"):
    """GPU ``i`` if it exists, else the CPU, as a torch.device or an MXNet context."""
    _check_framework(framework)
    if framework == "torch":
        import torch

        return torch.device(f"cuda:{i}") if num_gpus("torch") > i else torch.device("cpu")
    mx = require_mxnet()
    return mx.gpu(i) if num_gpus("mxnet") > i else mx.cpu()


def all_devices(framework: str = "torch", num_devices: int | None = None) -> list:
    """All GPUs, or ``num_devices`` CPU devices where there is no GPU.

    On a CPU-only machine MXNet gets distinct contexts ``mx.cpu(0..n-1)``; PyTorch gets
    ``n`` entries of ``torch.device('cpu')`` (its CPU has one device), so data-parallel
    code keeps one parameter replica per entry.
    """
    _check_framework(framework)
    if num_devices is not None and (not isinstance(num_devices, int) or num_devices < 1):
        raise ValueError(f"num_devices must be a positive int, got {num_devices!r}")
    gpus = num_gpus(framework)
    if framework == "torch":
        import torch

        if gpus:
            n = gpus if num_devices is None else min(num_devices, gpus)
            return [torch.device(f"cuda:{i}") for i in range(n)]
        return [torch.device("cpu")] * (num_devices or 1)
    mx = require_mxnet()
    if gpus:
        n = gpus if num_devices is None else min(num_devices, gpus)
        return [mx.gpu(i) for i in range(n)]
    return [mx.cpu(i) for i in range(num_devices or 1)]


def usable_cores() -> int:
    """CPU cores this process may run on (its affinity mask), not the machine's total."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):  # no sched_getaffinity on macOS or Windows
        return os.cpu_count() or 1


def _check_framework(framework: str) -> None:
    if framework not in ("torch", "mxnet"):
        raise ValueError(f"framework must be 'torch' or 'mxnet', got {framework!r}")


def environment_report() -> dict:
    """Facts about this machine and its frameworks, as a dict (see ``print_report``)."""
    import numpy as np
    import torch

    info = {
        "python": platform.python_version(),
        "platform": f"{platform.system()} {platform.machine()}",
        "cpu_cores": usable_cores(),
        "numpy": np.__version__,
        "torch": torch.__version__,
        "torch_threads": torch.get_num_threads(),
        "cuda_gpus": [torch.cuda.get_device_name(i) for i in range(num_gpus("torch"))],
        "bf16_cpu": _cpu_flag("avx512_bf16") or _cpu_flag("amx_bf16"),
    }
    from labkit.workers import distributed_status

    info["distributed_ok"], info["distributed"] = distributed_status()
    ok, detail = mxnet_status()
    info["mxnet"] = detail if ok else None
    info["mxnet_problem"] = None if ok else detail
    info["python_ok"] = (3, 11) <= sys.version_info[:2] <= (3, 13)
    return info


def _cpu_flag(flag: str) -> bool:
    try:
        with open("/proc/cpuinfo") as f:
            return any(flag in line.split() for line in f if line.startswith("flags"))
    except OSError:
        return False


def verdict(info: dict | None = None) -> str:
    """One line saying what this machine can run in the course."""
    info = info or environment_report()
    problems = []
    if not info["python_ok"]:
        problems.append(f"Python {info['python']} (the course supports 3.11 to 3.13)")
    if info["mxnet"] is None:
        problems.append("MXNet missing (its cells will skip)")
    if not info.get("distributed_ok", True):
        problems.append("torch.distributed missing (cells that start worker processes will skip)")
    where = (
        f"{len(info['cuda_gpus'])} GPU(s): {', '.join(info['cuda_gpus'])}"
        if info["cuda_gpus"]
        else f"CPU only, {info['cpu_cores']} cores (GPU cells will skip)"
    )
    if problems:
        return f"Ready with limits: {'; '.join(problems)}. Devices: {where}."
    return f"Ready: every notebook runs here. Devices: {where}."


def print_report() -> None:
    """Print a one-screen environment report with a verdict."""
    info = environment_report()
    rows = [
        ("Python", f"{info['python']} on {info['platform']}"),
        ("CPU cores", str(info["cpu_cores"])),
        ("numpy", info["numpy"]),
        ("PyTorch", f"{info['torch']} ({info['torch_threads']} intra-op threads)"),
        ("CUDA GPUs", ", ".join(info["cuda_gpus"]) or "none"),
        ("CPU bf16 units", "yes" if info["bf16_cpu"] else "no"),
        ("torch.distributed", info["distributed"]),
        ("MXNet", info["mxnet"] or info["mxnet_problem"]),
    ]
    width = max(len(k) for k, _ in rows)
    for key, value in rows:
        print(f"{key:<{width}}  {value}")
    print()
    print(verdict(info))
