"""Time per epoch of data-parallel LeNet training on digits against the number of devices.

    python benchmarks/02_data_parallel_scaling.py [world sizes ...]     (default: 1 2 4)

Takes ``epoch_worker`` (and the model) from the solution notebook, the one source, and
runs it as the notebook's scaling sweep does: gloo processes on the CPU, the same number
of threads per process for every world size, the 1-process baseline included. Where there
are CUDA GPUs it then runs one process per GPU with NCCL. Prints ms per epoch (total,
compute, allreduce; the slowest rank's) and the speed-up over one device.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from grading.course import notebook_namespace  # noqa: E402

THREADS_PER_WORKER = 1
BATCH_SIZE, LR, EPOCHS = 64, 0.2, 3


def sweep(ns: dict, world_sizes: list[int], cuda: bool) -> dict[int, dict[str, float]]:
    """Seconds per epoch (total, compute, allreduce) of the slowest rank, per world size."""
    import labkit

    results = {}
    for n in world_sizes:
        per_rank = labkit.workers.run(
            ns["epoch_worker"], n, ns["X_train"], ns["y_train"], ns["init_params"](),
            BATCH_SIZE, LR, EPOCHS, cuda=cuda, backend="nccl" if cuda else "gloo",
            threads=THREADS_PER_WORKER, timeout=600)
        results[n] = {k: max(r[k] for r in per_rank) for k in ("total", "compute", "allreduce")}
        r = results[n]
        print(f"  n={n}: {r['total'] * 1e3:8.1f} ms per epoch (compute {r['compute'] * 1e3:7.1f} ms, "
              f"allreduce {r['allreduce'] * 1e3:7.1f} ms), speed-up over n={world_sizes[0]}: "
              f"{results[world_sizes[0]]['total'] / r['total']:.2f}x", flush=True)
    return results


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("world_sizes", nargs="*", type=int, default=[1, 2, 4],
                   help="processes per run (default: 1 2 4)")
    world_sizes = p.parse_args(argv).world_sizes
    if any(n < 1 for n in world_sizes):
        p.error(f"world sizes must be positive ints, got {world_sizes}")
    os.environ["NBGRADER_EXECUTION"] = "benchmark"  # the notebook's own sweep cell skips itself
    with contextlib.redirect_stdout(io.StringIO()):  # the cells' own prints are not the figures
        ns = notebook_namespace("02_data_parallel", containing=(
            "import labkit", "def init_params", "def lenet", "def epoch_worker"))
    import torch

    import labkit

    print(f"torch {torch.__version__}, {labkit.devices.usable_cores()} usable CPU cores, "
          f"{THREADS_PER_WORKER} thread(s) per process, batch {BATCH_SIZE}, {EPOCHS} timed epochs")
    print("CPU, gloo processes:")
    sweep(ns, world_sizes, cuda=False)
    gpus = labkit.devices.num_gpus("torch")
    if gpus == 0:
        print("No CUDA GPU here: skipping one process per GPU with NCCL.")
    else:
        print(f"{torch.cuda.get_device_name(0)}, one process per GPU, NCCL:")
        sweep(ns, [n for n in world_sizes if n <= gpus], cuda=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
