"""Functions run by labkit.workers in the tests (importable by the worker processes)."""

import os
import time
import weakref

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


_left_open = []


class _Gone:
    pass


def python_in_gloo_thread_after_return(rank, world_size, path):
    """Returns while a gloo thread is about to run Python (a future's callback), with a file
    of this module left open and unflushed. The group is its own, unknown to
    destroy_process_group (as one DDP keeps alive): its threads outlive the function."""
    f = open(f"{path}.{rank}", "w")
    f.write("written before the worker ended")
    store = dist.PrefixStore("own", dist.distributed_c10d._get_default_store())
    group = dist.ProcessGroupGloo(store, rank, world_size)
    if rank == 1:
        time.sleep(1.0)  # rank 0's all-reduce, and its callback, end after it returned
    future = group.allreduce([torch.ones(4)]).get_future().then(lambda _: time.sleep(0.3))
    _left_open.append((f, group, future, weakref.proxy(_Gone())))  # a proxy to nothing, too
    return rank
