"""Functions run by labkit.workers in the tests (importable by the worker processes)."""

import os
import time

import torch
import torch.distributed as dist


def all_reduce_rank(rank, world_size, length):
    t = torch.full((length,), float(rank + 1))
    dist.all_reduce(t)
    print(f"rank {rank} done")
    return t


def fail_on_rank(rank, world_size, bad_rank):
    if rank == bad_rank:
        raise ValueError(f"boom on rank {rank}")
    time.sleep(60)


def exit_on_rank(rank, world_size, bad_rank):
    if rank == bad_rank:
        os._exit(7)
    time.sleep(60)


def report_pid(rank, world_size):
    return os.getpid()


def sleep_forever(rank, world_size, pid_file):
    with open(f"{pid_file}.{rank}", "w") as f:
        f.write(str(os.getpid()))
    time.sleep(600)
