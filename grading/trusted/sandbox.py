"""Run a student's code where it can read no secret and do no damage: bubblewrap.

The grading kernel (and every process it starts) runs in Linux namespaces made by
bubblewrap (Debian package ``bubblewrap``), as an unprivileged user:

- **What it sees.** The operating system (/usr, /bin, /lib, /etc) and the Python
  installation with the course's venv and ``labkit``, all read-only; a private, empty,
  size-capped /tmp and home; its own scratch folder holding only the assignment's
  released files. Not the course folder: no solutions/, no gradebook, no other student,
  no grading/ code, nothing of the grader's environment variables.
- **What it can reach.** No network (a loopback of its own, so ``torch.distributed``
  still runs between its own processes), no other process (its own PID namespace), no
  grader pipe (the grader talks to the kernel only over the kernel's own sockets).
- **Which system calls.** A seccomp filter (grading/trusted/seccomp.py, which lists them and
  why) refuses new namespaces, mounts, ptrace, keyrings, bpf, io_uring, module loading and
  the other calls the course never needs; bubblewrap reads it on a descriptor
  (``--seccomp``) and applies it before the first command inside, and a sandbox forked
  from the fork server installs the same one in its kernel and in every worker.
- **How long and how much, per submission.** When the kernel ends or is killed, every
  process it started ends too, double forks included (the PID namespace goes with it, and
  its cgroup is emptied and removed). Where the machine has cgroups (v2 unified, or v1
  with memory, pids and cpu hierarchies) each sandbox gets its own: memory, processes and
  threads, and CPU cores are capped for the submission as a whole, however many
  processes it starts. Its working folder is a size-capped tmpfs (a copy of the released
  files), so nothing it writes lands on the grading host's disk. Per process, rlimits
  cap address space, file size, open files and CPU seconds.

Where the grader runs as root, each concurrent sandbox runs as its own unprivileged uid
(``UID_BASE`` + slot, allocated under a lock so two grading processes never share one):
its RLIMIT_NPROC is then its own budget even where there are no cgroups, and no sandbox
can signal another's processes. bubblewrap sets up the namespaces as root and
``setpriv`` drops to that uid before any course or student code starts. As an ordinary
user, bubblewrap makes a user namespace instead (no cgroups unless delegated, one
process budget for the user).

As root on Linux, a kernel (or any ``python`` command run in a sandbox) is not exec'd by
bubblewrap but forked from this grading process's fork server (grading/trusted/forkserver.py),
which has imported torch, NumPy, matplotlib and ipykernel once: the child makes the same
namespaces, file tree, uid, cgroup and rlimits itself before the kernel starts, and skips
the interpreter's start and the heavy imports (about 2 CPU-seconds a submission).
``COURSE_SANDBOX_FORKSERVER=0`` starts every kernel by bubblewrap instead.

``SandboxKernelManager`` is a jupyter_client kernel manager that starts kernels this
way; nbgrader's Execute preprocessor takes it through ``Execute.kernel_manager_class``.
``limits_note()`` says which limits this machine lets the grader set.
"""

from __future__ import annotations

import atexit
import errno
import json
import fcntl
import os
import pwd
import shutil
import signal
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path

from jupyter_client.manager import AsyncKernelManager
from traitlets import Unicode

from grading.trusted import seccomp
from grading.trusted.kernels import private_folder

REPO = Path(__file__).resolve().parents[2]
NOBODY = 65534
UID_BASE = 60001            # sandbox uids: UID_BASE .. UID_BASE + SLOTS - 1, one per sandbox
SLOTS = 64
SLOT_DIR = Path("/run/course-sandbox")   # lock files of the uid slots (root only)
CGROUP_PREFIX = "course-sandbox"
INSTALL_HINT = "apt-get install bubblewrap"
FILES_INSIDE = "/.sandbox-files"        # the starting files, read-only, copied to the tmpfs
LIB_INSIDE = "/.course-lib"             # the course's labkit inside (first on its PYTHONPATH)
LABKIT = REPO / "labkit"                # the course's labkit, which the sandbox gets a copy of


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
                           "grading.trusted.sandbox.SLOTS")

    def release(self) -> None:
        fd, self.fd = getattr(self, "fd", None), None
        if fd is not None:
            os.close(fd)


# ------------------------------------------------------------------------- the sandbox

def unavailable() -> str | None:
    """Why no sandbox can be made on this machine (with the fix), or None when one can."""
    if sys.platform != "linux":
        return f"the sandbox needs Linux namespaces; this is {sys.platform}"
    missing = [tool for tool in ("bwrap", "prlimit", "setpriv") if shutil.which(tool) is None]
    if missing:
        return (f"{', '.join(missing)} not found: run '{INSTALL_HINT}' "
                "(bubblewrap; prlimit and setpriv come with util-linux)")
    with tempfile.TemporaryDirectory(prefix="sandbox-probe-") as tmp:
        os.chmod(tmp, 0o755)
        argv = command(["true"], Path(tmp))
        probe = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    if probe.returncode != 0:
        detail = probe.stderr.strip().splitlines()[-1] if probe.stderr.strip() else ""
        return ("bubblewrap cannot create namespaces here (are user namespaces disabled? "
                f"'sysctl kernel.unprivileged_userns_clone=1' enables them): {detail}")
    return None


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


def _python_roots() -> list[Path]:
    """Folders the venv's Python needs: the base installation and the venv itself."""
    roots = {Path(sys.base_prefix).resolve(), Path(sys.prefix)}
    stdlib = Path(sysconfig.get_paths()["stdlib"]).resolve()
    if not any(stdlib.is_relative_to(r) for r in roots):
        roots.add(stdlib)
    return sorted(roots)


_lib_lock = threading.Lock()
_libs: dict[Path, Path] = {}


def course_lib() -> Path:
    """The course's ``labkit`` as every sandbox of this grading process sees it: a copy any
    uid can read, made once in the process's private folder. The course folder itself may be
    closed to all but the instructor's group (``make hub`` leaves it 2770, its files 0660),
    and the sandbox's uid is none of those: bound from there, ``import labkit`` failed with
    a PermissionError in every student's kernel and every test cell timed out."""
    source = LABKIT
    with _lib_lock:
        dest = _libs.get(source)
        if dest is None or not dest.is_dir():
            dest = Path(tempfile.mkdtemp(prefix="labkit-", dir=private_folder()))
            shutil.copytree(source, dest, dirs_exist_ok=True,
                            ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
            for path in [dest, *dest.rglob("*")]:
                os.chmod(path, 0o755 if path.is_dir() else 0o644)
            _libs[source] = dest
    return dest


def _own_processes() -> int:
    """Processes and threads this user runs now (RLIMIT_NPROC counts them all)."""
    uid, count = os.getuid(), 0
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                if entry.stat().st_uid == uid:
                    count += len(os.listdir(f"/proc/{entry.name}/task"))
            except OSError:
                pass
    return count


def hosts_file() -> str | None:
    """The sandbox's /etc/hosts: the machine's, with names for the loopback addresses as
    IPv6 writes them (``::1``, and ``::ffff:127.0.0.1`` for IPv4's). The sandbox has no
    network: an address not named here is asked of a DNS server it cannot reach, glibc
    answers "try again" instead of the number, and torch's c10d printed a warning for each
    worker that joined a rendezvous store (it names ``::ffff:127.0.0.1``). Written once per
    grading process, in its private folder; None without a /etc/hosts to extend."""
    path = private_folder() / "hosts"
    if path.exists():
        return str(path)
    try:
        text = Path("/etc/hosts").read_text()
    except OSError:
        return None
    named = {line.split()[0] for line in text.splitlines() if line.split()
             and not line.lstrip().startswith("#")}
    extra = "".join(f"{a} localhost\n" for a in ("::1", "::ffff:127.0.0.1") if a not in named)
    part = path.with_name(f"hosts.{threading.get_ident()}")
    part.write_text((text if text.endswith("\n") or not text else text + "\n") + extra)
    os.chmod(part, 0o644)
    os.replace(part, path)   # whole, for a sandbox started meanwhile
    return str(path)


def seccomp_file() -> str | None:
    """The seccomp filter (grading/trusted/seccomp.py), compiled, in a file bubblewrap reads it
    from: written once per grading process, in its private folder; None where the machine
    gets no filter."""
    program = seccomp.program()
    if program is None:
        return None
    path = private_folder() / "seccomp.bpf"
    if not path.exists():
        part = path.with_name(f"seccomp.{threading.get_ident()}")
        part.write_bytes(program)
        os.replace(part, path)
    return str(path)


SECCOMP_FD = 3      # bubblewrap reads the filter on this descriptor (opened by /bin/sh)


def command(argv: list[str], workdir: Path, *, rw: list[Path] = (), env: dict | None = None,
            limits: Limits = Limits(), uid: int = NOBODY) -> list[str]:
    """The command line that runs ``argv`` in a sandbox.

    ``workdir`` holds the files the sandbox starts with: inside, the same path is a fresh
    tmpfs of ``limits.scratch_bytes`` holding a copy of them (nothing written there
    reaches ``workdir``). ``rw`` are further folders bound read-write at their own paths
    (the kernel's sockets). As root, bubblewrap makes the namespaces and ``setpriv``
    turns the process into ``uid`` before anything else runs; as an ordinary user,
    bubblewrap makes a user namespace and the code runs as that user, mapped, with no
    capability. Either way under the seccomp filter of grading/trusted/seccomp.py, which a shell
    opens on a descriptor for bubblewrap (so the command line works from any caller).
    Use ``Sandbox`` for a uid of its own and a cgroup.
    """
    root = os.geteuid() == 0
    args = ["bwrap", "--die-with-parent", "--hostname", "localhost",
            "--proc", "/proc", "--dev", "/dev"]
    for tmp in ("/dev/shm", "/tmp", "/home/student"):
        args += ["--perms", "1777", "--size", str(limits.tmp_bytes), "--tmpfs", tmp]
    if root:
        args[1:1] = ["--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
                     "--unshare-cgroup-try", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    else:
        args[1:1] = ["--unshare-all"]
    for system in ("/usr", "/etc", "/opt"):
        if Path(system).is_dir():
            args += ["--ro-bind", system, system]
    hosts = hosts_file()
    if hosts:
        args += ["--ro-bind", hosts, "/etc/hosts"]
    for link in ("/bin", "/sbin", "/lib", "/lib64", "/lib32"):
        p = Path(link)
        if p.is_symlink():
            args += ["--symlink", os.readlink(p), link]
        elif p.is_dir():
            args += ["--ro-bind", link, link]
    made = {"/", "/tmp", "/usr", "/etc", "/opt", "/home", "/home/student"}

    def parents(path: Path) -> list[str]:
        # bubblewrap makes missing parents 0700 as root: make them 0755 so the uid passes
        out = []
        for parent in reversed(path.parents):
            if str(parent) not in made:
                made.add(str(parent))
                out += ["--perms", "0755", "--dir", str(parent)]
        return out

    for path in _python_roots():
        args += parents(path) + ["--ro-bind", str(path), str(path)]
    args += parents(Path(LIB_INSIDE, "labkit")) + ["--ro-bind", str(course_lib()),
                                                   f"{LIB_INSIDE}/labkit"]
    args += parents(workdir) + ["--perms", "1777", "--size", str(limits.scratch_bytes),
                                "--tmpfs", str(workdir), "--ro-bind", str(workdir), FILES_INSIDE]
    for path in rw:
        args += parents(path) + ["--bind", str(path), str(path)]
    args += ["--chdir", str(workdir), "--clearenv"]
    for key, value in sorted(_sandbox_env(env or {}).items()):
        args += ["--setenv", key, value]
    args.append("--")
    if root:
        args += ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups",
                 "--inh-caps=-all", "--"]
    nproc = limits.processes if root else _own_processes() + limits.processes
    args += ["prlimit", f"--as={limits.memory_bytes}", f"--nproc={nproc}",
             f"--fsize={limits.file_bytes}", f"--nofile={limits.open_files}",
             f"--cpu={limits.cpu_seconds}", "--core=0", "--"]
    # copy the starting files into the tmpfs (as the sandbox's uid), then run argv
    start = (f"cp -R {FILES_INSIDE}/. . || {{ echo 'sandbox: its starting files do not fit "
             f"in its {limits.scratch_bytes}-byte scratch folder' >&2; exit 121; }}; "
             'exec "$@"')
    args += ["/bin/sh", "-c", start, "sandbox", *argv]
    bpf = seccomp_file()
    if bpf is None:
        return args
    args[1:1] = ["--seccomp", str(SECCOMP_FD)]
    return ["/bin/sh", "-c", f'f=$1; shift; exec "$@" {SECCOMP_FD}<"$f"', "sandbox-seccomp",
            bpf, *args]


# Variables a kernel may keep from the grader's environment; everything else is dropped
# (a class server's database URL or a token never reaches student code).
_KEEP = ("NBGRADER_EXECUTION", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "COURSE_THREADS",
         "LANG", "LC_ALL", "TZ", "PYTHONHASHSEED", "MPLBACKEND")


def _sandbox_env(env: dict) -> dict:
    kept = {k: v for k, v in env.items() if k in _KEEP}
    bindir = str(Path(sys.executable).parent)
    kept.update(HOME="/home/student", USER="student", TMPDIR="/tmp",
                PATH=f"{bindir}:/usr/local/bin:/usr/bin:/bin", PYTHONNOUSERSITE="1",
                PYTHONPATH=LIB_INSIDE,
                MPLCONFIGDIR="/tmp/matplotlib", PYTHONDONTWRITEBYTECODE="1")
    kept.setdefault("LANG", "C.UTF-8")
    return kept


def _die_with_grader() -> None:
    """In the child before exec: SIGKILL when the grading process dies (bwrap then takes
    everything in the sandbox with it), and SIGINT ignored, so that an interrupt sent to
    the kernel's process group stops the cell, not bubblewrap (ipykernel installs its own
    SIGINT handler while a cell runs)."""
    import ctypes

    ctypes.CDLL(None, use_errno=True).prctl(1, 9)  # PR_SET_PDEATHSIG, SIGKILL
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _die_with_grader_keep_sigint() -> None:
    """The fork server's client: killed with the grading process, and SIGINT relayed (not
    ignored) to the kernel."""
    import ctypes

    ctypes.CDLL(None, use_errno=True).prctl(1, 9)  # PR_SET_PDEATHSIG, SIGKILL


class Sandbox:
    """The per-submission part of a sandbox: a uid of its own (as root) and a cgroup
    (where the machine has them), made by ``open`` and undone by ``close`` (which kills
    whatever is left in it). ``command`` builds the command line, ``preexec`` is the
    ``preexec_fn`` that puts the child in the cgroup."""

    _count = 0

    def __init__(self, limits: Limits = Limits(), *, cgroups: bool = True,
                 slot_folder: Path | None = None):
        self.limits = limits
        self.use_cgroups = cgroups
        self.slot_folder = slot_folder
        self.slot: UidSlot | None = None
        self.cgroup: Cgroup | None = None
        self.cgroup_error = ""
        self.folder: Path | None = None       # a forked sandbox's root mount point and pid
        self._folder_pid: Path | None = None
        self.workers_record: Path | None = None  # a forked sandbox's PID 1 lists its workers

    @property
    def uid(self) -> int:
        return self.slot.uid if self.slot else os.getuid()

    def open(self) -> Sandbox:
        if os.geteuid() == 0 and self.slot is None:
            self.slot = UidSlot(self.slot_folder)
        self.new_cgroup()
        return self

    def new_cgroup(self) -> None:
        """A fresh cgroup (a kernel restarted gets a new one)."""
        self.drop_cgroup()
        if not self.use_cgroups:
            return
        Sandbox._count += 1
        name = f"{CGROUP_PREFIX}-{os.getpid()}-{Sandbox._count}-{self.uid}"
        try:
            self.cgroup = Cgroup(name, self.limits)
        except OSError as exc:
            self.cgroup_error = str(exc)

    def drop_cgroup(self) -> None:
        cg, self.cgroup = self.cgroup, None
        if cg is not None:
            cg.remove()

    def give(self, path: Path) -> None:
        """Let the sandbox's uid write ``path``."""
        if os.geteuid() == 0:
            os.chown(path, self.uid, self.uid)
        os.chmod(path, 0o700)

    def command(self, argv: list[str], workdir: Path, **kw) -> list[str]:
        return command(argv, workdir, limits=self.limits, uid=self.uid, **kw)

    def preexec(self) -> None:
        if self.cgroup is not None:
            self.cgroup.enter()
        _die_with_grader()

    def launch(self, argv: list[str], workdir: Path, *, rw=(), env=None):
        """(command line, preexec_fn) that run ``argv`` in this sandbox: forked from this
        process's fork server where ``argv`` runs this Python and the server can be had,
        else bubblewrap's ``command``. Either way the same files, limits, uid and cgroup."""
        target = _python_target(argv)
        server = ForkServer.get() if target else None
        if server is None:
            self._folder_pid = self.workers_record = None
            return self.command(argv, workdir, rw=rw, env=env), self.preexec
        return self._forked(server, target, workdir, rw, env)

    def _forked(self, server: ForkServer, target: dict, workdir: Path, rw, env):
        """(command line, preexec_fn) of the client that has ``server`` fork this sandbox."""
        if self.folder is None:   # the grader's alone (the sandbox sees only its new root)
            self.folder = Path(tempfile.mkdtemp(prefix="sandbox-fork-"))
            os.chmod(self.folder, 0o700)
        root = self.folder / "root"
        root.mkdir(mode=0o755, exist_ok=True)
        self._folder_pid = self.folder / "inner.pid"
        self._folder_pid.unlink(missing_ok=True)
        self.workers_record = self.folder / "workers.record"  # written by the sandbox's PID 1
        self.workers_record.unlink(missing_ok=True)
        self.workers_record.touch(mode=0o600)
        req = {"root": str(root), "workdir": str(workdir), "rw": [str(p) for p in rw],
               "ro": [str(p) for p in _python_roots()]
               + [[str(course_lib()), f"{LIB_INSIDE}/labkit"]],
               "limits": asdict(self.limits), "uid": self.uid,
               "nproc": self.limits.processes if os.geteuid() == 0
               else _own_processes() + self.limits.processes,
               "env": _sandbox_env(env or {}),
               "cgroups": [str(f) for f in (self.cgroup.folders if self.cgroup else [])],
               "hosts": hosts_file(),
               "seccomp": (seccomp.program() or b"").hex(),
               "record": str(self.workers_record),
               **target}
        fd, request = tempfile.mkstemp(prefix="request-", suffix=".json", dir=self.folder)
        with os.fdopen(fd, "w") as f:
            json.dump(req, f)
        return ([sys.executable, "-I", str(REPO / "grading" / "trusted" / "forkserver.py"),
                 "client", server.path, str(self._folder_pid), request], _die_with_grader_keep_sigint)

    def inner_pid(self) -> int:
        """The host pid of a forked sandbox's PID 1 (0 for bubblewrap's, or before it runs)."""
        try:
            return int(self._folder_pid.read_text()) if self._folder_pid else 0
        except (OSError, ValueError):
            return 0

    def run(self, argv: list[str], workdir: Path, *, env=None, rw=(), **kw):
        """subprocess.run of ``argv`` in this sandbox."""
        command, preexec = self.launch(argv, workdir, env=env, rw=rw)
        return subprocess.run(command, preexec_fn=preexec, **kw)

    def close(self) -> None:
        self.drop_cgroup()
        folder, self.folder = self.folder, None
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)
        if self.slot is not None:
            self.slot.release()
            self.slot = None

    def __enter__(self) -> Sandbox:
        return self.open()

    def __exit__(self, *exc) -> None:
        self.close()


# ------------------------------------------------------------------------- the fork server

FORKSERVER_ENV = "COURSE_SANDBOX_FORKSERVER"   # "0": every kernel started by bubblewrap


class ForkServer:
    """This grading process's fork server (grading/trusted/forkserver.py), started on first use:
    kernels forked from it skip the interpreter's start and the heavy imports. Only as
    root on Linux (it makes mount and PID namespaces without a user namespace)."""

    _current: ForkServer | None = None
    _failed = ""
    _lock = threading.Lock()

    def __init__(self):
        self.folder = Path(tempfile.mkdtemp(prefix="forkserver-"))
        os.chmod(self.folder, 0o700)
        self.path = str(self.folder / "server")
        env = _sandbox_env(dict(os.environ))
        self.process = subprocess.Popen(
            [sys.executable, "-Xfrozen_modules=off",
             str(REPO / "grading" / "trusted" / "forkserver.py"), "serve", self.path],
            env=env, cwd=str(self.folder), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            preexec_fn=_die_with_grader, close_fds=True)
        line = self.process.stdout.readline()
        if line.strip() != b"ready":
            self.close()
            raise RuntimeError("the sandbox's fork server did not start (see the log above)")
        why = self.probe()
        if why:
            self.close()
            raise RuntimeError(f"the fork server could not make a sandbox here: {why}")

    def probe(self) -> str | None:
        """Why a sandbox forked from this server cannot run a script here (a mount this
        machine refuses, say), or None: found once, not as every kernel dies at its start."""
        with tempfile.TemporaryDirectory(prefix="sandbox-probe-") as tmp:
            os.chmod(tmp, 0o755)
            Path(tmp, "probe.py").write_text("")
            os.chmod(Path(tmp, "probe.py"), 0o644)
            with Sandbox(cgroups=False) as sb:
                argv, preexec = sb._forked(self, {"path": "probe.py", "args": []}, Path(tmp),
                                           (), None)
                try:
                    got = subprocess.run(argv, preexec_fn=preexec, capture_output=True,
                                         text=True, timeout=60)
                except subprocess.TimeoutExpired:
                    return "its probe did not end within 60 s"
        if got.returncode == 0:
            return None
        lines = got.stderr.strip().splitlines()
        return lines[-1] if lines else f"exit code {got.returncode}"

    @classmethod
    def get(cls) -> ForkServer | None:
        """The running server, or None where kernels start by bubblewrap instead."""
        if os.environ.get(FORKSERVER_ENV, "1") == "0" or cls._failed:
            return None
        if sys.platform != "linux" or os.geteuid() != 0:
            return None
        with cls._lock:
            server = cls._current
            if server is None or server.process.poll() is not None:
                try:
                    server = cls._current = ForkServer()
                except (OSError, RuntimeError) as exc:
                    cls._failed = str(exc)
                    print(f"sandbox: kernels start by bubblewrap ({exc})", file=sys.stderr)
                    return None
            return server

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.process.stdout.close()
        shutil.rmtree(self.folder, ignore_errors=True)
        if ForkServer._current is self:
            ForkServer._current = None


@atexit.register
def _stop_fork_server() -> None:
    if ForkServer._current is not None:
        ForkServer._current.close()


def _python_target(argv: list[str]) -> dict | None:
    """What ``argv`` runs with this Python (``python [-Xfrozen_modules=off] -m module args``,
    ipykernel's kernelspec, or ``python script args``), as the fork server's request
    names it; None for any other command."""
    argv = [a for i, a in enumerate(argv) if not (i == 1 and a == "-Xfrozen_modules=off")]
    if len(argv) < 2 or os.path.abspath(shutil.which(argv[0]) or argv[0]) != \
            os.path.abspath(sys.executable):
        return None
    if argv[1] == "-m" and len(argv) >= 3:
        return {"module": argv[2], "args": list(argv[3:])}
    if not argv[1].startswith("-"):
        return {"path": argv[1], "args": list(argv[2:])}   # a relative one: from the workdir
    return None


class SandboxKernelManager(AsyncKernelManager):
    """An AsyncKernelManager (what nbclient drives) whose kernel runs in a bubblewrap
    sandbox (see the module docstring), with a uid and a cgroup of its own.

    The kernel's sockets are Unix sockets in a private folder (the sandbox has no network
    to reach TCP ports on the grader's loopback), inside a 0700 folder of the grader's that
    no other user can enter; once the kernel is ready (``seal``), the sockets folder is the
    grader's again, so the kernel can no longer add files there. Its
    working folder is a size-capped tmpfs holding a copy of ``files_from`` (the
    assignment's released files), never the student's own hand-in folder, so nothing the
    student left there (a module that shadows a library, a link, a named pipe) is seen by
    the kernel or read back by the grader.
    """

    files_from = Unicode("", config=True,
                         help="Folder whose regular files are copied into the kernel's scratch "
                              "folder (the released assignment)")

    def __init__(self, **kwargs):
        kwargs.setdefault("transport", "ipc")
        super().__init__(**kwargs)
        # the grader's alone: no other user lists or enters it (the kernel's sockets and
        # connection file, the judge's sockets); the sandbox reaches ``sockets`` through its
        # bind mount, whose parents inside are folders of the sandbox's own /tmp
        self._box = Path(tempfile.mkdtemp(prefix="sandbox-"))
        os.chmod(self._box, 0o700)
        self._sockets = self._box / "sockets"
        self._work = self._box / "work"
        for d in (self._sockets, self._work):
            d.mkdir()
            os.chmod(d, 0o755)
        self.sandbox = Sandbox()
        self.ip = str(self._sockets / "kernel")
        self.connection_file = str(self._sockets / "connection.json")

    def _fill_workdir(self) -> None:
        src = Path(self.files_from) if self.files_from else None
        if not src or not src.is_dir():
            return
        for path in sorted(src.iterdir()):
            if path.is_file() and not path.is_symlink() and path.suffix != ".ipynb":
                dest = self._work / path.name
                shutil.copyfile(path, dest)
                os.chmod(dest, 0o644)

    async def _async_launch_kernel(self, kernel_cmd, **kw):
        self._fill_workdir()
        if self.sandbox.slot is None:
            self.sandbox.open()
        else:
            self.sandbox.new_cgroup()  # a restart
        self.sandbox.give(self._sockets)
        # The connection file holds the HMAC key the grader signs messages with; the
        # kernel needs it, so it is readable inside (the student may learn it, which only
        # lets it talk to its own kernel).
        if os.geteuid() == 0 and os.path.exists(self.connection_file):
            os.chown(self.connection_file, self.sandbox.uid, self.sandbox.uid)
        kw["cwd"] = str(self._work)
        argv, kw["preexec_fn"] = self.sandbox.launch(kernel_cmd, self._work, rw=[self._sockets],
                                                     env=kw.get("env") or {})
        await super()._async_launch_kernel(argv, **kw)

    def kernel_pid(self) -> int:
        """The host pid of the process every process of the kernel descends from."""
        process = getattr(self.provisioner, "process", None)
        return self.sandbox.inner_pid() or (process.pid if process is not None else 0)

    def seal(self) -> None:
        """Once the kernel has made its sockets: the folder (and the connection file) are
        the grader's again, so the student's code cannot write files on the host there."""
        if os.geteuid() != 0:
            return
        for path in (self._sockets, Path(self.connection_file)):
            try:
                os.chown(path, 0, 0)
            except OSError:
                pass
        os.chmod(self._sockets, 0o755)

    async def _async_cleanup_resources(self, restart: bool = False) -> None:
        await super()._async_cleanup_resources(restart=restart)
        self.sandbox.drop_cgroup()
        if not restart:
            self.sandbox.close()
            shutil.rmtree(self._box, ignore_errors=True)

    cleanup_resources = _async_cleanup_resources

    def __del__(self):
        sb = getattr(self, "sandbox", None)
        if sb is not None:
            sb.close()
        shutil.rmtree(getattr(self, "_box", "/nonexistent-sandbox"), ignore_errors=True)
