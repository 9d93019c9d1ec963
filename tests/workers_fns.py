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


def listening_sockets(pid):
    """(address, port) of each TCP socket process ``pid`` listens on (from /proc)."""
    inodes = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            link = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if link.startswith("socket:["):
            inodes.add(link[8:-1])
    out = set()
    for table in ("tcp", "tcp6"):
        with open(f"/proc/{pid}/net/{table}") as f:
            for line in list(f)[1:]:
                fields = line.split()
                local, state, inode = fields[1], fields[3], fields[9]
                if state == "0A" and inode in inodes:   # LISTEN
                    address, port = local.split(":")
                    out.add((address, int(port, 16)))
    return out


def parent_listening_sockets(rank, world_size):
    return listening_sockets(os.getppid())
