"""What one sandbox may use, and how the machine enforces it (trusted side, in the grader).

``Limits`` holds the numbers: memory, processes and threads, CPU cores for the submission as
a whole, and per-process rlimits. ``Cgroup`` makes a sandbox's own cgroup where the machine
has one (v2 unified, or v1 with memory, pids and cpu hierarchies; ``cgroup_support`` says
which, and why not), ``UidSlot`` gives each concurrent sandbox its own unprivileged uid
(allocated under a lock, so two grading processes never share one), and ``limits_note``
says in a line or two which of these hold on this machine. The sandbox itself
(grading/trusted/sandbox.py) applies them.
"""

from __future__ import annotations

import errno
import fcntl
import os
import pwd
import signal
import sys
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path


from grading.trusted import seccomp

NOBODY = 65534
UID_BASE = 60001            # sandbox uids: UID_BASE .. UID_BASE + SLOTS - 1, one per sandbox
SLOTS = 64
SLOT_DIR = Path("/run/course-sandbox")   # lock files of the uid slots (root only)
CGROUP_PREFIX = "course-sandbox"


@dataclass(frozen=True)
class Limits:
    """Resource limits of one sandbox: the one place the numbers live.

    ``memory_bytes``, ``processes`` and ``cpu_cores`` hold for the submission as a whole
    (its cgroup) where the machine has cgroups; ``memory_bytes`` is also every process's
    address-space rlimit, and ``processes`` the RLIMIT_NPROC of the sandbox's own uid."""

    memory_bytes: int = 8 << 30        # memory of the whole submission (and address space of each process)
    processes: int = 1024              # processes and threads of the whole submission
    cpu_cores: float = 2.0             # CPU time per wall-clock second of the whole submission
    file_bytes: int = 256 << 20        # largest file it may write
    open_files: int = 1024
    cpu_seconds: int = 3600            # CPU time of each process
    tmp_bytes: int = 512 << 20         # size of each private tmpfs: /tmp, /dev/shm, home
    scratch_bytes: int = 512 << 20     # size of its working folder (a tmpfs)


def _size(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if n < 1024 or unit == "TiB":
            return f"{n:g} {unit}" if unit != "B" else f"{int(n)} B"
        n /= 1024
    return str(n)


# ------------------------------------------------------------------------- cgroups

@lru_cache(maxsize=1)
def cgroup_support() -> tuple[int, dict[str, Path], str]:
    """(version, {controller: parent folder}, why not) for the memory, pids and cpu
    controllers: version 0 and an empty dict where this process cannot make cgroups.

    cgroup v2: sandboxes go under ``<unified mount>/course-sandbox`` (a cgroup holding no
    process, with the three controllers enabled for its children). cgroup v1: under the
    grader's own cgroup in each controller's hierarchy (so any limit on the grader still
    holds for its sandboxes)."""
    if sys.platform != "linux":
        return 0, {}, "no cgroups on " + sys.platform
    try:
        mounts = [line.split() for line in open("/proc/self/mounts")]
        own = {}
        for line in open("/proc/self/cgroup"):
            _, ctrls, path = line.rstrip("\n").split(":", 2)
            for c in (ctrls.split(",") if ctrls else [""]):
                own[c] = path
    except OSError as exc:
        return 0, {}, f"cannot read /proc: {exc}"
    wanted = ("memory", "pids", "cpu")
    why = []
    for m in mounts:
        if len(m) < 3 or m[2] != "cgroup2":
            continue
        root = Path(m[1])
        try:
            available = (root / "cgroup.controllers").read_text().split()
        except OSError:
            continue
        if not all(c in available for c in wanted):
            why.append(f"cgroup v2 at {root} lacks "
                       + ", ".join(c for c in wanted if c not in available))
            continue
        parent = root / CGROUP_PREFIX
        try:
            _enable_v2(root, wanted)
            parent.mkdir(exist_ok=True)
            _enable_v2(parent, wanted)
            probe = parent / f"probe-{os.getpid()}"
            probe.mkdir()
            probe.rmdir()
        except OSError as exc:
            why.append(f"cgroup v2 at {root}: cannot make {parent} with memory, pids and cpu "
                       f"({exc.strerror}; run the grader as root or delegate that cgroup)")
            continue
        _sweep([parent])
        return 2, {c: parent for c in wanted}, ""
    found = {}
    for m in mounts:
        if len(m) < 4 or m[2] != "cgroup":
            continue
        for c in wanted:
            if c in m[3].split(",") and c in own and c not in found:
                parent = Path(m[1]) / own[c].lstrip("/")
                try:
                    probe = parent / f"{CGROUP_PREFIX}-probe-{os.getpid()}"
                    probe.mkdir()
                    probe.rmdir()
                    found[c] = parent
                except OSError as exc:
                    why.append(f"cgroup v1 {c} at {parent}: {exc.strerror} (run the grader "
                               "as root)")
    if found:
        _sweep(found.values())
        missing = [c for c in wanted if c not in found]
        if missing:
            why.append("cgroup v1 has no usable " + ", ".join(missing) + " hierarchy")
        return 1, found, "; ".join(why)
    return 0, {}, "; ".join(why) or "no cgroup hierarchy mounted (/sys/fs/cgroup)"


def _sweep(parents) -> None:
    """Remove empty cgroups left by a grading process that was killed (its pid is gone)."""
    for parent in set(parents):
        for folder in parent.glob(f"{CGROUP_PREFIX}-*-*-*"):
            try:
                pid = int(folder.name.split("-")[-3])
                if Path(f"/proc/{pid}").exists() or (folder / "cgroup.procs").read_text().strip():
                    continue
                folder.rmdir()
            except (OSError, ValueError):
                pass


def _enable_v2(folder: Path, controllers) -> None:
    on = (folder / "cgroup.subtree_control").read_text().split()
    need = [c for c in controllers if c not in on]
    if need:
        (folder / "cgroup.subtree_control").write_text(" ".join("+" + c for c in need))


class Cgroup:
    """One sandbox's cgroup (one folder per v1 hierarchy, or one v2 folder)."""

    def __init__(self, name: str, limits: Limits):
        version, parents, _ = cgroup_support()
        if not version:
            raise OSError(errno.ENOTSUP, "no usable cgroups")
        self.version = version
        self.folders: list[Path] = []
        self.set: dict[str, str] = {}
        try:
            for folder in sorted({p / name for p in parents.values()}):
                folder.mkdir()
                self.folders.append(folder)
            mem, pids, cpu = (parents.get(c) for c in ("memory", "pids", "cpu"))
            period = 100_000
            quota = max(1000, int(limits.cpu_cores * period))
            if version == 2:
                f = self.folders[0]
                (f / "memory.max").write_text(str(limits.memory_bytes))
                if (f / "memory.swap.max").exists():
                    (f / "memory.swap.max").write_text("0")
                (f / "pids.max").write_text(str(limits.processes))
                (f / "cpu.max").write_text(f"{quota} {period}")
                # weighed as many processes as it has cores, not as one (under contention)
                (f / "cpu.weight").write_text(str(max(1, min(10000, int(100 * limits.cpu_cores)))))
                self.set = {"memory": str(limits.memory_bytes), "pids": str(limits.processes),
                            "cpu": f"{quota} {period}"}
            else:
                if mem:
                    f = mem / name
                    (f / "memory.limit_in_bytes").write_text(str(limits.memory_bytes))
                    if (f / "memory.memsw.limit_in_bytes").exists():
                        (f / "memory.memsw.limit_in_bytes").write_text(str(limits.memory_bytes))
                    self.set["memory"] = str(limits.memory_bytes)
                if pids:
                    (pids / name / "pids.max").write_text(str(limits.processes))
                    self.set["pids"] = str(limits.processes)
                if cpu:
                    (cpu / name / "cpu.cfs_period_us").write_text(str(period))
                    (cpu / name / "cpu.cfs_quota_us").write_text(str(quota))
                    # weighed as many processes as it has cores, not as one (under contention)
                    (cpu / name / "cpu.shares").write_text(str(max(2, int(1024 * limits.cpu_cores))))
                    self.set["cpu"] = f"{quota} {period}"
        except BaseException:
            self.remove()
            raise

    def enter(self) -> None:
        """Put the calling process in this cgroup (in the child, before exec)."""
        for folder in self.folders:
            with open(folder / "cgroup.procs", "w") as f:
                f.write(str(os.getpid()))

    def pids(self) -> set[int]:
        out = set()
        for folder in self.folders:
            try:
                out |= {int(p) for p in (folder / "cgroup.procs").read_text().split()}
            except OSError:
                pass
        return out

    def remove(self, timeout: float = 30) -> None:
        """Kill every process left in the cgroup, then remove it."""
        deadline = time.monotonic() + timeout
        while True:
            left = self.pids()
            if not left or time.monotonic() > deadline:
                break
            for pid in left:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            time.sleep(0.05)
        for folder in list(self.folders):
            for _ in range(100):
                try:
                    folder.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.1)
            if not folder.exists():
                self.folders.remove(folder)


# ------------------------------------------------------------------------- uid slots

def _uid_in_use(uid: int) -> bool:
    """A uid some account or some running process already has."""
    try:
        pwd.getpwuid(uid)
        return True
    except KeyError:
        pass
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                if entry.stat().st_uid == uid:
                    return True
            except OSError:
                pass
    return False


class UidSlot:
    """A uid of its own for one sandbox, held (an flock on its slot's lock file) until
    ``release``; a grading process that dies releases its slots with it."""

    def __init__(self, folder: Path | None = None, base: int | None = None,
                 slots: int | None = None):
        folder = Path(folder or SLOT_DIR)
        base = UID_BASE if base is None else base
        slots = SLOTS if slots is None else slots
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        for i in range(slots):
            fd = os.open(folder / f"slot-{i}.lock", os.O_RDWR | os.O_CREAT, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                continue
            if _uid_in_use(base + i):  # an account's, or left running: never share it
                os.close(fd)
                continue
            self.fd, self.uid = fd, base + i
            return
        raise RuntimeError(f"all {slots} sandbox uids ({base}-{base + slots - 1}) are in use: "
                           "grade fewer submissions at once (JOBS=...) or raise "
                           "grading.trusted.limits.SLOTS")

    def release(self) -> None:
        fd, self.fd = getattr(self, "fd", None), None
        if fd is not None:
            os.close(fd)


def cgroup_parts(limits: Limits) -> tuple[str, list[str], str]:
    """(the limits a cgroup of ``limits`` sets on this machine, as words, or ""; those it
    cannot set; why not)."""
    version, parents, why = cgroup_support()
    names = {"memory": f"memory {_size(limits.memory_bytes)}",
             "pids": f"{limits.processes} processes/threads",
             "cpu": f"{limits.cpu_cores:g} CPU cores"}
    have = (f"cgroup v{version} " + ", ".join(names[c] for c in names if c in parents)
            if version else "")
    return have, [names[c] for c in names if c not in parents], why


def limits_note(limits: Limits = Limits()) -> list[str]:
    """One or two lines: the limits a sandbox gets on this machine, and those it cannot
    get and why (``make autograde`` prints them at start)."""
    have, missing, why = cgroup_parts(limits)
    per = []
    if have:
        per.append(have + " per submission")
    per.append(f"scratch tmpfs {_size(limits.scratch_bytes)} (/tmp, /dev/shm, home "
               f"{_size(limits.tmp_bytes)} each)")
    no_filter = seccomp.supported()
    if not no_filter:
        per.append(f"seccomp filter refusing {len(seccomp.REFUSED)} system calls "
                   "(grading/trusted/seccomp.py)")
    root = os.geteuid() == 0
    if root:
        per.append(f"uid {UID_BASE}-{UID_BASE + SLOTS - 1}, one per concurrent sandbox "
                   f"(RLIMIT_NPROC {limits.processes} each)")
    lines = ["sandbox limits: " + "; ".join(per)]
    cant = []
    if missing:
        cant.append(", ".join(missing) + " per submission not set (" + (why or "no cgroups")
                    + "): only per-process rlimits hold for them")
    if no_filter:
        cant.append(f"no seccomp filter ({no_filter})")
    if not root:
        cant.append("one uid for every sandbox (the grader is not root): processes are "
                    "counted for all sandboxes of this user together")
    if cant:
        lines.append("sandbox limits not set: " + "; ".join(cant))
    return lines
