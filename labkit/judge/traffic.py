"""Bytes between processes, counted from outside them (judge side).

``Meter`` runs where the verdict is made; the workers it measures are a
``labkit.judge.pool.Pool``'s. It takes snapshots of every TCP socket in the network namespace
the pool's workers live in (``ss -tinp``: bytes sent per socket, its owning process and its
peer), so the bytes each worker sent to each other worker between two snapshots are known
without asking the workers. In trusted grading the learner's kernel runs in its own network
namespace (grading/trusted/sandbox.py, ``bwrap --unshare-net``); the judge enters it
(``nsenter --net``) to take the snapshots and also reads the namespace's loopback counter
(``/proc/<pid>/net/dev``), which counts every packet, so traffic on sockets that were closed
before the second snapshot still shows. Which processes are the ranks is read from the
forked sandbox's own record of the workers it forked, never from the pool. In the learner's
own kernel (self-study) the snapshots are of the host's sockets, filtered to the pool's
workers: the same numbers, not a verdict; the loopback counter is read only where the
workers have a network namespace of their own (with the sandbox off it would count every
other process's traffic too). The meter also reads the memory the ranks keep, from
/proc/<pid>/pagemap.

What a meter cannot see: data moved through shared memory, files, pipes or Unix sockets;
it counts TCP (and, in trusted grading, all loopback traffic).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from typing import Any, Callable

__all__ = ["Flows", "Meter"]

# ------------------------------------------------------------------------- memory, from outside
_PAGE = os.sysconf("SC_PAGE_SIZE")


def _present_pages(pid: int) -> set:
    """(virtual page, physical frame) of every present page of the writable mappings of
    ``pid`` (heap, anonymous and shared memory, stacks, data): /proc/<pid>/maps and pagemap.
    Bit 63 of a pagemap entry says present, bits 0-54 are the frame."""
    pages: set = set()
    with open(f"/proc/{pid}/maps") as maps, open(f"/proc/{pid}/pagemap", "rb", buffering=0) as pagemap:
        for line in maps:
            fields = line.split()
            if len(fields) < 2 or "w" not in fields[1]:
                continue
            lo, hi = (int(x, 16) for x in fields[0].split("-"))
            if hi > 1 << 47:  # [vsyscall] and the like
                continue
            first, count = lo // _PAGE, (hi - lo) // _PAGE
            pagemap.seek(first * 8)
            raw = pagemap.read(count * 8)
            for i, entry in enumerate(memoryview(raw).cast("Q")):
                if entry >> 63:
                    pages.add((first + i, entry & ((1 << 55) - 1)))
    return pages


def _tmpfs_used(pid: int) -> int:
    """Bytes in use on every tmpfs mounted where ``pid`` lives that it may write to (each
    file system once), read through /proc/<pid>/root."""
    seen, used = set(), 0
    with open(f"/proc/{pid}/mountinfo") as f:
        for line in f:
            before, _, after = line.partition(" - ")
            fields, kind = before.split(), after.split()
            if not kind or kind[0] != "tmpfs" or "rw" not in fields[5].split(","):
                continue
            point = fields[4].encode().decode("unicode_escape")
            try:
                path = f"/proc/{pid}/root{point}"
                dev = os.stat(path).st_dev
                if dev in seen:
                    continue
                seen.add(dev)
                st = os.statvfs(path)
            except OSError:
                continue
            used += (st.f_blocks - st.f_bfree) * st.f_frsize
    return used


# ------------------------------------------------------------------------- the meter
@dataclass
class Flows:
    """What a meter saw between two snapshots."""

    sent: dict[tuple[int, Any], int] = field(default_factory=dict)  # (rank, to) -> bytes
    segments: int = 0            # TCP segments sent on the sockets seen (headers: see Meter)
    loopback: int | None = None  # bytes the namespace's loopback carried (trusted grading)
    resent: int = 0              # bytes TCP sent again (retransmissions): on the wire, not in sent

    def to(self, rank: int, peer: Any) -> int:
        """Bytes ``rank`` sent to ``peer`` (a rank, or "other" for any other process)."""
        return self.sent.get((rank, peer), 0)

    def by(self, rank: int) -> int:
        """Bytes ``rank`` sent to anyone."""
        return sum(v for (r, _), v in self.sent.items() if r == rank)

    def elsewhere(self, rank: int, peer: int) -> int:
        """Bytes ``rank`` sent to anyone but ``peer``."""
        return self.by(rank) - self.to(rank, peer)

    @property
    def total(self) -> int:
        return sum(self.sent.values())


_SOCK = re.compile(r"^(?:[A-Z-]+\s+)?\d+\s+\d+\s+(\S+:\d+)\s+(\S+:\d+)\s*(.*)$")


_STARTED_WHILE_MEASURED = ("a worker was started or ended in this sandbox while a call was measured: only the "
                           "ranks the meter was made for may run then")


def _judge_session():
    from . import handles

    return handles._session


class Meter:
    """Counts, from outside, the TCP bytes the workers of ``pool`` send each other.

    ``pool`` is a ``Pool`` or (trusted grading) a handle to one in the learner's kernel; its
    ``pids()`` are mapped to this machine's process ids (in trusted grading: among the
    processes under the learner's kernel, through their ``NSpid``), and each must be a pool
    worker named for its rank (``labkit.workers.process_name``)."""

    HEADER = 52        # bytes of IPv4 + TCP headers (with timestamps) per segment on loopback
    HEADER_BOUND = 80  # what the loopback counter may add per segment (options, SACK blocks)
    OTHERS_ALLOWED = 4096  # bytes other processes of the sandbox may send while a call is measured
    UNSEEN = 4096          # bytes the loopback may carry beyond what the counted connections account for

    def __init__(self, pool: Any):
        session = _judge_session()
        self.pool = pool
        self.judged = session is not None
        claimed = [int(p) for p in pool.pids()]
        record = getattr(session, "workers_record", "") if self.judged else ""
        self.pids = self._host_pids(claimed, session.pid if self.judged else os.getpid(), record)
        self._record, self._ranks = record, set(claimed)
        self._rank = {pid: r for r, pid in enumerate(self.pids)}
        self._ss = shutil.which("ss")
        if self._ss is None:
            raise RuntimeError("counting a ring's bytes needs the `ss` tool (Debian/Ubuntu: "
                               "apt-get install iproute2)")

    @staticmethod
    def _host_pids(claimed: list[int], root: int, record: str = "") -> list[int]:
        """This machine's pid of each claimed worker pid, checked to be a pool worker of the
        right rank under ``root``. With ``record`` (a forked sandbox: ``root`` is its PID 1,
        which lists there each worker it forks and each that ends), the claimed pids must be
        every worker alive in the sandbox, each once: which processes are the ranks is then
        the sandbox's word, not the learner's."""
        if record:
            return Meter._recorded(claimed, root, record)
        parent: dict[int, int] = {}
        for name in os.listdir("/proc"):
            if name.isdigit():
                try:
                    with open(f"/proc/{name}/stat") as f:
                        parent[int(name)] = int(f.read().rsplit(")", 1)[1].split()[1])
                except OSError:
                    pass
        under, todo = set(), [root]
        children: dict[int, list[int]] = {}
        for pid, pp in parent.items():
            children.setdefault(pp, []).append(pid)
        while todo:
            pid = todo.pop()
            for c in children.get(pid, []):
                if c not in under:
                    under.add(c)
                    todo.append(c)
        inner: dict[int, list[int]] = {}
        for pid in under:
            try:
                with open(f"/proc/{pid}/status") as f:
                    nspid = next(line.split()[-1] for line in f if line.startswith("NSpid:"))
                inner.setdefault(int(nspid), []).append(pid)
            except (OSError, StopIteration):
                pass
        from labkit.workers import process_name

        found = []
        for rank, pid in enumerate(claimed):
            matches = []
            for host in inner.get(pid, []):
                try:
                    with open(f"/proc/{host}/comm") as f:
                        name = f.read().strip()
                except OSError:
                    continue
                if name == process_name(rank):
                    matches.append(host)
            if len(matches) != 1:
                raise RuntimeError(f"the pool's rank {rank} (pid {pid}) is not a worker process "
                                   "this meter can find")
            found.append(matches[0])
        return found

    @staticmethod
    def _recorded(claimed: list[int], root: int, record: str) -> list[int]:
        from labkit.judge.outside import sandbox_host_pids, sandbox_record

        _, alive = sandbox_record(record)
        if sorted(claimed) != sorted(alive) or len(set(claimed)) != len(claimed):
            extra = sorted(alive - set(claimed))
            raise RuntimeError(
                f"the pool's ranks are pids {claimed} as its pids() says, but the workers running "
                f"in this sandbox are {sorted(alive)}: the bytes and memory of the ranks are "
                "measured on the sandbox's own list of its workers, never on a list the notebook "
                "gives" + (f". Stop the other workers ({extra}) before the tests: end every "
                           "labkit.workers.run and close every other labkit.judge.pool.Pool" if extra
                           and set(claimed) <= alive else ""))
        host = sandbox_host_pids(root, set(claimed))   # PID 1 forks every worker
        missing = [pid for pid in claimed if pid not in host]
        if missing:
            raise RuntimeError(f"the sandbox's workers {missing} are not running any more, "
                               "or were not forked by its PID 1")
        return [host[pid] for pid in claimed]

    def _still_the_ranks(self) -> int:
        """A forked sandbox: the workers alive on its list are still exactly the ranks this
        meter was made for (a worker started later, such as a pool started after the meter,
        is not measured, so none may be running); returns how long the list is now, so that a
        measurement can require that no worker started or ended while it ran."""
        if not getattr(self, "_record", ""):   # bubblewrap, self-study
            return 0
        from labkit.judge.outside import sandbox_record

        length = os.stat(self._record).st_size
        _, alive = sandbox_record(self._record)
        if alive != self._ranks:
            raise RuntimeError(
                f"the workers running in this sandbox are {sorted(alive)}, but this meter measures the "
                f"ranks {sorted(self._ranks)} that were running when it was made: bytes and memory are "
                "measured on the workers the sandbox listed then, and no other worker may run while they are")
        return length

    def _unchanged(self, length: int) -> None:
        if self._still_the_ranks() != length:
            raise RuntimeError(_STARTED_WHILE_MEASURED)

    def _run(self, argv: list[str]) -> str:
        if self.judged:
            prefix = ["nsenter", "-t", str(self.pids[0]), "-n"]
            if os.geteuid() != 0:
                prefix[4:4] = ["-U", "--preserve-credentials"]
            argv = prefix + argv
        return subprocess.run(argv, capture_output=True, text=True, check=True, timeout=30).stdout

    def _own_network(self) -> bool:
        """Whether the workers live in a network namespace other than this process's (the
        sandbox's); without one (self-study, or trusted grading with the sandbox off) the
        loopback carries everyone's traffic, other gradings' included."""
        try:
            return os.readlink(f"/proc/{self.pids[0]}/ns/net") != os.readlink("/proc/self/ns/net")
        except OSError:
            return False

    def _loopback(self) -> int | None:
        if not (self.judged and self._own_network()):
            return None  # the host's loopback carries everyone's traffic
        with open(f"/proc/{self.pids[0]}/net/dev") as f:
            for line in f:
                name, _, rest = line.partition(":")
                if name.strip() == "lo":
                    return int(rest.split()[8])  # transmitted bytes
        return None

    def snapshot(self) -> dict:
        """Every TCP socket of the namespace: (local, peer) -> (pids, bytes sent, segments,
        bytes resent). Bytes sent count each byte the process wrote once: TCP's own
        retransmissions (a loaded machine drops loopback packets now and then) are resent."""
        listed = self._still_the_ranks()
        lo = self._loopback()
        text = self._run([self._ss, "-tinpH", "state", "established"])
        socks, lines = {}, text.splitlines()
        head = None
        for line in lines:
            if not line.startswith((" ", "\t")):
                head = line
                continue
            m = _SOCK.match(head or "")
            if not m:
                continue
            local, peer, users = m.groups()
            pids = tuple(int(p) for p in re.findall(r"pid=(\d+)", users))
            sent, segs, resent = (re.search(rf"\b{key}:(\d+)", line)
                                  for key in ("bytes_sent", "segs_out", "bytes_retrans"))
            resent = int(resent.group(1)) if resent else 0
            socks[(local, peer)] = (pids, (int(sent.group(1)) if sent else 0) - resent,
                                    int(segs.group(1)) if segs else 0, resent)
        return {"sockets": socks, "loopback": lo, "listed": listed}

    def resident(self) -> list[int]:
        """Per rank, the bytes of memory its process holds now, its libraries' code aside
        (``RssAnon`` + ``RssShmem`` in /proc/<pid>/status: the heap, tensors included, and
        shared memory it has mapped, such as a tensor moved there with ``share_memory_()``)."""
        return self._status("RssAnon", "RssShmem")

    def pages(self) -> list[set]:
        """Per rank, the pages of its writable memory present now, each as (virtual page,
        physical frame) (``/proc/<pid>/pagemap``; frames are shown to root only, else 0). A
        page the rank held at one reading and not at a later one was let go of in between,
        even where its address was used again."""
        self._still_the_ranks()
        return [_present_pages(pid) for pid in self.pids]

    def in_files(self) -> int:
        """Bytes the files of every tmpfs the ranks can write to hold (the sandbox's /dev/shm,
        home and /tmp): memory a rank can keep outside its process. Trusted grading only: in
        self-study the tmpfs are the host's, which every process writes to."""
        self._still_the_ranks()
        return _tmpfs_used(self.pids[0]) if self.judged else 0  # self-study: the host's tmpfs is everyone's

    def keeps(self, fn: Callable, per_rank_args: list) -> tuple[list[int], Flows]:
        """Run ``fn`` on the pool twice (the first run's one-off allocations are not what a
        rank keeps); per rank, the bytes of memory what the second run returned holds
        (``resident`` with it, against without), and the bytes that run sent. Memory a rank
        let go of during the run that it held before it counts as kept (the baseline is the
        rank's own memory, so a buffer left by one call and freed as the next begins would
        otherwise hide as much), and so does the growth of the tmpfs files the ranks can
        write. The pool lets go of what the run returned afterwards."""
        self.pool.call(fn, per_rank_args, False)
        self.pool.release()
        listed = self._still_the_ranks()
        pages, files, before = self.pages(), self.in_files(), self.resident()
        with self.watch() as flows:
            self.pool.call(fn, per_rank_args, False)
        self.pool.settle()
        after, let_go, grown = self.resident(), self._let_go(pages), self.in_files() - files
        kept = [a - b + f + max(grown, 0) for a, b, f in zip(after, before, let_go)]
        self._unchanged(listed)
        self.pool.release()
        return kept, flows

    def _let_go(self, before: list[set]) -> list[int]:
        """Per rank, the bytes of the pages present in ``before`` and gone now."""
        return [len(b - a) * _PAGE for b, a in zip(before, self.pages())]

    def _status(self, *fields: str) -> list[int]:
        """Per rank, the sum of these fields of /proc/<pid>/status, in bytes."""
        self._still_the_ranks()
        keys, out = tuple(f + ":" for f in fields), []
        for pid in self.pids:
            with open(f"/proc/{pid}/status") as f:
                out.append(sum(int(line.split()[1]) for line in f if line.startswith(keys)) * 1024)
        return out

    def peaks(self, fn: Callable, per_rank_args: list) -> list[int]:
        """Run ``fn`` on the pool twice (the first run's one-off allocations aside); per rank, how
        far the second run took the process's resident memory above where it stood when the
        run began, at its highest (``VmHWM`` in /proc/<pid>/status, reset to the current
        resident size just before the run by writing 5 to /proc/<pid>/clear_refs), plus what
        the run let go of that the rank held before it and the growth of the tmpfs files
        the ranks can write (as ``keeps`` counts them). Small
        arguments only: what a call receives and sends back counts too. The pool lets go of
        what the run returned afterwards."""
        self.pool.call(fn, per_rank_args, False)
        self.pool.release()
        listed = self._still_the_ranks()
        pages, files, before = self.pages(), self.in_files(), self._status("VmRSS")
        for pid in self.pids:
            try:
                with open(f"/proc/{pid}/clear_refs", "w") as f:
                    f.write("5")
            except OSError as exc:
                raise RuntimeError(f"cannot reset the peak memory of worker {pid} (/proc/{pid}/clear_refs: "
                                   f"{exc.strerror}): this needs the workers' own user or root, and "
                                   "Linux 4.0 or newer") from None
        self.pool.call(fn, per_rank_args, False)
        high, let_go, grown = self._status("VmHWM"), self._let_go(pages), self.in_files() - files
        peak = [a - b + f + max(grown, 0) for a, b, f in zip(high, before, let_go)]
        self._unchanged(listed)
        self.pool.release()
        return peak

    def between(self, before: dict, after: dict) -> Flows:
        """Bytes each worker sent, to which worker ("other": to any other process)."""
        flows = Flows()
        if before.get("listed") != after.get("listed"):
            raise RuntimeError(_STARTED_WHILE_MEASURED)
        old, new = before["sockets"], after["sockets"]
        for (local, peer), (pids, sent, segs, resent) in new.items():
            was = old.get((local, peer), ((), 0, 0, 0))
            delta, dsegs = sent - was[1], segs - was[2]
            flows.segments += max(0, dsegs)
            flows.resent += max(0, resent - was[3])
            if delta <= 0:
                continue
            # the receiving end is the socket with the two addresses swapped: an address alone
            # is not one socket (a listener's accepted sockets share its port, and Linux gives
            # one ephemeral port to connections of different processes to different peers)
            receiver = new.get((peer, local), ((),))[0]
            key = (self._holder(pids), self._holder(receiver))
            # a connection open before the call is credited to who held its ends then too: bytes are
            # written by a process, and an end handed to another process (SCM_RIGHTS, dup2) after
            # the writing would credit them to the new holder
            if (local, peer) in old:
                then = (self._holder(was[0]), self._holder(old.get((peer, local), ((),))[0]))
                if then != key:
                    raise RuntimeError(
                        f"a connection changed hands while a call was measured: its ends were held by {then[0]} "
                        f"and {then[1]} before the call and by {key[0]} and {key[1]} after it, so the {delta} "
                        "bytes sent on it cannot be credited to one rank; a rank keeps its own connections")
            else:  # opened during the call: who held its ends while it carried data is not known
                key = ("other", key[1])
            flows.sent[key] = flows.sent.get(key, 0) + delta
        if before["loopback"] is not None and after["loopback"] is not None:
            flows.loopback = after["loopback"] - before["loopback"]
            seen = flows.total + flows.resent + self.HEADER_BOUND * flows.segments
            if flows.loopback > seen + self.UNSEEN:
                raise RuntimeError(
                    f"the sandbox's network carried {flows.loopback} bytes while a call was measured, the "
                    f"connections open after it account for {seen}: traffic on connections closed before the count")
            others = {dst: b for (src, dst), b in flows.sent.items() if src == "other"}
            if sum(others.values()) > self.OTHERS_ALLOWED:   # the sandbox's network holds the ranks alone
                raise RuntimeError(
                    f"processes that are not the pool's ranks sent {sum(others.values())} bytes while a call was "
                    f"measured (by receiving rank: {others}): the ranks are the workers the sandbox started and "
                    "listed, and only they may move the data")
        return flows

    def _holder(self, pids: tuple) -> Any:
        """The rank whose socket this is: the rank that alone holds it ("other" where a process
        that is not that rank holds it too, such as one that lent it to a rank: SCM_RIGHTS)."""
        ranks = {self._rank.get(p, "other") for p in pids}
        return ranks.pop() if len(ranks) == 1 else "other"

    def watch(self) -> "_Watch":
        """``with meter.watch() as flows: ...``: ``flows`` is filled in when the block ends."""
        return _Watch(self)


class _Watch:
    def __init__(self, meter: Meter):
        self.meter, self.flows = meter, Flows()

    def __enter__(self) -> Flows:
        self._before = self.meter.snapshot()
        return self.flows

    def __exit__(self, *exc) -> None:
        seen = self.meter.between(self._before, self.meter.snapshot())
        self.flows.sent, self.flows.segments, self.flows.loopback, self.flows.resent = \
            seen.sent, seen.segments, seen.loopback, seen.resent
