"""Run a student's code where it can read no secret and do no damage: bubblewrap.

About 620 lines: the file tree a sandbox sees (``command``), the ``Sandbox`` that runs in it
and the kernel manager that starts kernels there are one boundary, reviewed together; what a
sandbox may use lives in grading/trusted/limits.py.

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
import json
import os
import shutil
import signal
import subprocess
import sys
import sysconfig
import tempfile
import threading
from dataclasses import asdict
from pathlib import Path

from jupyter_client.manager import AsyncKernelManager
from traitlets import Unicode

from grading.trusted import seccomp
from grading.trusted.kernels import private_folder
from grading.trusted.limits import CGROUP_PREFIX, NOBODY, Cgroup, Limits, UidSlot

REPO = Path(__file__).resolve().parents[2]
INSTALL_HINT = "apt-get install bubblewrap"
FILES_INSIDE = "/.sandbox-files"        # the starting files, read-only, copied to the tmpfs
LIB_INSIDE = "/.course-lib"             # the course's labkit inside (first on its PYTHONPATH)
LABKIT = REPO / "labkit"                # the course's labkit, which the sandbox gets a copy of


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
