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
- **How long and how much.** When the kernel ends or is killed, every process it started
  ends too, double forks included (the PID namespace goes with it). Address space, number
  of processes, file size, open files and CPU seconds are capped with rlimits.

Where the grader runs as root, the code runs as uid/gid 65534 (``nobody``): bubblewrap
sets up the namespaces as root and ``setpriv`` drops to nobody before any course or
student code starts. As an ordinary user, bubblewrap makes a user namespace instead.

``SandboxKernelManager`` is a jupyter_client kernel manager that starts kernels this
way; nbgrader's Execute preprocessor takes it through ``Execute.kernel_manager_class``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from dataclasses import dataclass
from pathlib import Path

from jupyter_client.manager import AsyncKernelManager
from traitlets import Unicode

REPO = Path(__file__).resolve().parent.parent
NOBODY = 65534
INSTALL_HINT = "apt-get install bubblewrap"


@dataclass(frozen=True)
class Limits:
    """Resource limits of one sandbox (rlimits, applied to every process inside)."""

    memory_bytes: int = 8 << 30        # address space of each process
    processes: int = 1024              # processes and threads of the sandbox user
    file_bytes: int = 256 << 20        # largest file it may write
    open_files: int = 1024
    cpu_seconds: int = 3600            # CPU time of each process
    tmp_bytes: int = 512 << 20         # size of its private /tmp


def unavailable() -> str | None:
    """Why no sandbox can be made on this machine (with the fix), or None when one can."""
    if sys.platform != "linux":
        return f"the sandbox needs Linux namespaces; this is {sys.platform}"
    missing = [tool for tool in ("bwrap", "prlimit", "setpriv") if shutil.which(tool) is None]
    if missing:
        return (f"{', '.join(missing)} not found: run '{INSTALL_HINT}' "
                "(bubblewrap; prlimit and setpriv come with util-linux)")
    with tempfile.TemporaryDirectory(prefix="sandbox-probe-") as tmp:
        _give_to_sandbox(Path(tmp))
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


def command(argv: list[str], workdir: Path, *, rw: list[Path] = (), env: dict | None = None,
            limits: Limits = Limits()) -> list[str]:
    """The command line that runs ``argv`` in a sandbox.

    ``workdir`` becomes the sandbox's working folder (read-write, at the same path);
    ``rw`` are further folders bound read-write at their own paths (the kernel's sockets).
    As root, bubblewrap makes the namespaces and ``setpriv`` turns the process into
    nobody before anything else runs; as an ordinary user, bubblewrap makes a user
    namespace and the code runs as that user, mapped, with no capability.
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
    for link in ("/bin", "/sbin", "/lib", "/lib64", "/lib32"):
        p = Path(link)
        if p.is_symlink():
            args += ["--symlink", os.readlink(p), link]
        elif p.is_dir():
            args += ["--ro-bind", link, link]
    made = {"/", "/tmp", "/usr", "/etc", "/opt", "/home", "/home/student"}

    def parents(path: Path) -> list[str]:
        # bubblewrap makes missing parents 0700 as root: make them 0755 so nobody passes
        out = []
        for parent in reversed(path.parents):
            if str(parent) not in made:
                made.add(str(parent))
                out += ["--perms", "0755", "--dir", str(parent)]
        return out

    for path in _python_roots() + [REPO / "labkit"]:
        args += parents(path) + ["--ro-bind", str(path), str(path)]
    for path in [workdir, *rw]:
        args += parents(path) + ["--bind", str(path), str(path)]
    args += ["--chdir", str(workdir), "--clearenv"]
    for key, value in sorted(_sandbox_env(env or {}).items()):
        args += ["--setenv", key, value]
    args.append("--")
    if root:
        args += ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups",
                 "--inh-caps=-all", "--"]
    nproc = limits.processes if root else _own_processes() + limits.processes
    args += ["prlimit", f"--as={limits.memory_bytes}", f"--nproc={nproc}",
             f"--fsize={limits.file_bytes}", f"--nofile={limits.open_files}",
             f"--cpu={limits.cpu_seconds}", "--core=0", "--"]
    return args + list(argv)


# Variables a kernel may keep from the grader's environment; everything else is dropped
# (a class server's database URL or a token never reaches student code).
_KEEP = ("NBGRADER_EXECUTION", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "COURSE_THREADS",
         "LANG", "LC_ALL", "TZ", "PYTHONHASHSEED", "MPLBACKEND")


def _sandbox_env(env: dict) -> dict:
    kept = {k: v for k, v in env.items() if k in _KEEP}
    bindir = str(Path(sys.executable).parent)
    kept.update(HOME="/home/student", USER="student", TMPDIR="/tmp",
                PATH=f"{bindir}:/usr/local/bin:/usr/bin:/bin", PYTHONNOUSERSITE="1",
                MPLCONFIGDIR="/tmp/matplotlib", PYTHONDONTWRITEBYTECODE="1")
    kept.setdefault("LANG", "C.UTF-8")
    return kept


def _die_with_grader() -> None:
    """In the child before exec: SIGKILL when the grading process dies (bwrap then takes
    everything in the sandbox with it), and SIGINT ignored, so that an interrupt sent to
    the kernel's process group stops the cell, not bubblewrap (ipykernel installs its own
    SIGINT handler while a cell runs)."""
    import ctypes
    import signal

    ctypes.CDLL(None, use_errno=True).prctl(1, 9)  # PR_SET_PDEATHSIG, SIGKILL
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _give_to_sandbox(path: Path) -> None:
    """Let the sandbox user write ``path`` (it is nobody when the grader is root)."""
    if os.geteuid() == 0:
        os.chown(path, NOBODY, NOBODY)
    os.chmod(path, 0o700)


class SandboxKernelManager(AsyncKernelManager):
    """An AsyncKernelManager (what nbclient drives) whose kernel runs in a bubblewrap
    sandbox (see the module docstring).

    The kernel's sockets are Unix sockets in a private folder (the sandbox has no network
    to reach TCP ports on the grader's loopback); its working folder is a fresh scratch
    folder holding a copy of ``files_from`` (the assignment's released files), never the
    student's own hand-in folder, so nothing the student left there (a module that
    shadows a library, a link, a named pipe) is seen by the kernel or read back by the
    grader.
    """

    files_from = Unicode("", config=True,
                         help="Folder whose regular files are copied into the kernel's scratch "
                              "folder (the released assignment)")

    def __init__(self, **kwargs):
        kwargs.setdefault("transport", "ipc")
        super().__init__(**kwargs)
        self._box = Path(tempfile.mkdtemp(prefix="sandbox-"))
        os.chmod(self._box, 0o711)
        self._sockets = self._box / "sockets"
        self._work = self._box / "work"
        for d in (self._sockets, self._work):
            d.mkdir()
            _give_to_sandbox(d)
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
                if os.geteuid() == 0:
                    os.chown(dest, NOBODY, NOBODY)

    async def _async_launch_kernel(self, kernel_cmd, **kw):
        self._fill_workdir()
        # The connection file holds the HMAC key the grader signs messages with; the
        # kernel needs it, so it is readable inside (the student may learn it, which only
        # lets it talk to its own kernel).
        if os.geteuid() == 0 and os.path.exists(self.connection_file):
            os.chown(self.connection_file, NOBODY, NOBODY)
        argv = command(kernel_cmd, self._work, rw=[self._sockets], env=kw.get("env") or {})
        kw["cwd"] = str(self._work)
        kw["preexec_fn"] = _die_with_grader
        await super()._async_launch_kernel(argv, **kw)

    async def _async_cleanup_resources(self, restart: bool = False) -> None:
        await super()._async_cleanup_resources(restart=restart)
        if not restart:
            shutil.rmtree(self._box, ignore_errors=True)

    cleanup_resources = _async_cleanup_resources

    def __del__(self):
        shutil.rmtree(getattr(self, "_box", "/nonexistent-sandbox"), ignore_errors=True)
