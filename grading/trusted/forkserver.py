"""Sandboxed kernels forked from a process that has already imported the heavy libraries.

One file of about 720 lines, for a reason: it runs as a script, the server
(``python grading/trusted/forkserver.py serve``, which imports nothing of the course) and
the client (``python -I ... client``, standard library only), where no module beside it can
be imported.

Starting a learner's kernel the plain way (``bwrap ... python -m ipykernel_launcher``)
pays, for every submission, the interpreter's start, ipykernel's imports and then the
notebook's own ``import torch`` (about 2.5 CPU-seconds on a 2-core grader): more than
the rest of the sandbox costs together. A *fork server* pays them once per grading
process: it imports torch, NumPy, matplotlib, ipywidgets and ipykernel, runs no course
or student code, and for each kernel forks a child that builds a fresh sandbox around
itself before the kernel starts:

- **namespaces**: mount, PID, network (a loopback of its own), IPC, UTS and cgroup,
  made by ``unshare`` in the child; the kernel's PID namespace ends (and every process
  in it with it) when the kernel ends;
- **files**: a new root (``pivot_root``) on a tmpfs holding the same read-only binds
  as grading/trusted/sandbox.py's bubblewrap command (/usr, /etc, /opt, the Python roots,
  labkit), private size-capped tmpfs for /tmp, /dev/shm, home and the working folder
  (a copy of the released files), a minimal /dev and its own /proc; the old root is
  detached, so nothing of the grading host is reachable;
- **who and how much**: the sandbox's own uid (no capability left, no new privileges),
  its cgroup, and the same rlimits as the bubblewrap path;
- **which system calls**: the seccomp filter of grading/trusted/seccomp.py (sent in the request),
  installed in the kernel and in every worker once they have dropped to that uid.

Nothing carries from one student to the next: each kernel is a fresh fork of the
server, which never runs a kernel itself. The server needs root (to make mount and PID
namespaces without a user namespace); elsewhere grading/trusted/sandbox.py keeps bubblewrap.

Processes, for one kernel: the grader starts a small *client* (``python -I
grading/trusted/forkserver.py client ...``, standard library only) as the kernel's process, so
jupyter_client signals, polls and kills it as it would the kernel; the client hands the
request and its stdin/stdout/stderr to the server, relays SIGINT and SIGTERM to the
sandbox, and exits with the kernel's status. If the client dies, the server kills the
sandbox; if the server dies, so does every sandbox it made (PR_SET_PDEATHSIG).

Workers, too: labkit.workers' processes (the gloo groups of 00, 03's ring pools, 06's
and 07's groups) would each start Python and import torch, about 1.7 CPU-seconds apiece.
The sandbox's PID 1, a fork of the server that runs no course or student code, forks
them instead on an abstract Unix socket of the sandbox's own network namespace (its name
is in the kernel's environment); each worker drops to the sandbox's uid before it reads
what to run. Started outside a forked sandbox, labkit.workers starts fresh Pythons.
"""

from __future__ import annotations

import ctypes
import json
import os
import signal
import socket
import struct
import sys

# Imported once, before any fork (each child starts with them in memory).
PRELOAD = ("numpy", "torch", "torch.distributed", "cloudpickle", "matplotlib",
           "matplotlib.pyplot", "ipywidgets", "tqdm", "ipykernel.kernelapp",
           "ipykernel.ipkernel", "IPython")

CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWUTS = 0x00020000, 0x02000000, 0x04000000
CLONE_NEWIPC, CLONE_NEWPID, CLONE_NEWNET = 0x08000000, 0x20000000, 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
MNT_DETACH = 2
PR_SET_PDEATHSIG, PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS = 1, 24, 38
SYS_SECCOMP, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC = 317, 1, 1   # x86-64
EXIT_SETUP = 120          # the sandbox could not be made (its message on stderr)
EXIT_FILES = 121          # the starting files do not fit in the scratch folder (as bwrap's path)

# labkit.workers asks the sandbox's PID 1 for its workers on this abstract socket, named in
# the kernel's environment (labkit/workers.py reads the same variable)
WORKER_ENV, WORKER_SOCKET = "LABKIT_WORKER_SERVER", "labkit-workers"
MAX_WORKERS = 64          # live at once; PID 1 forks as root, so the uid's RLIMIT_NPROC
                          # cannot bound it (the cgroup's pids.max does, where there is one)

_libc = None


def _c():
    global _libc
    if _libc is None:
        _libc = ctypes.CDLL(None, use_errno=True)
    return _libc


def _check(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def _enc(value) -> bytes | None:
    return None if value is None else str(value).encode()


def _mount(src, target, fstype, flags, data=None) -> None:
    _check(_c().mount(_enc(src), _enc(target), _enc(fstype), ctypes.c_ulong(flags), _enc(data)),
           f"mount {src or fstype} on {target}")


def _send(sock: socket.socket, obj) -> None:
    data = json.dumps(obj).encode()
    sock.sendall(struct.pack("!I", len(data)) + data)


def _recv(sock: socket.socket, fds: int = 0):
    """One message (and up to ``fds`` file descriptors passed with it), or None at EOF."""
    head, got = b"", []
    while len(head) < 4:
        if fds and not got:
            chunk, got, _, _ = socket.recv_fds(sock, 4 - len(head), fds)
        else:
            chunk = sock.recv(4 - len(head))
        if not chunk:
            return None, got
        head += chunk
    size, body = struct.unpack("!I", head)[0], b""
    if size > 1 << 20:
        raise ValueError("request too large")
    while len(body) < size:
        chunk = sock.recv(size - len(body))
        if not chunk:
            return None, got
        body += chunk
    return json.loads(body), got


# ------------------------------------------------------------------------- the sandbox

def _ro_bind(src: str, dest: str) -> None:
    _mount(src, dest, None, MS_BIND | MS_REC)


def _remount_ro(targets: list[str]) -> None:
    """Every mount at or under each target read-only, nosuid, nodev (submounts included:
    a bind of /etc carries the container's /etc/hosts mounts with it)."""
    points = []
    with open("/proc/self/mountinfo") as f:
        for line in f:
            point = line.split()[4].replace("\\040", " ")
            if any(point == t or point.startswith(t.rstrip("/") + "/") for t in targets):
                points.append(point)
    for point in points:
        flags = MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV
        try:
            _mount(None, point, None, flags)
        except OSError:  # a mount whose flags are locked: keep its own, add read-only
            _mount(None, point, None, MS_REMOUNT | MS_BIND | MS_RDONLY)


def _dirs(root: str, path: str, made: set[str]) -> None:
    """The parents of ``path`` under ``root`` and the folder itself, 0755 (so the uid passes)."""
    parts = [p for p in path.split("/") if p]
    for i in range(1, len(parts) + 1):
        sub = "/" + "/".join(parts[:i])
        if sub not in made:
            os.makedirs(root + sub, exist_ok=True)
            os.chmod(root + sub, 0o755)
            made.add(sub)


def _tmpfs(target: str, size: int, mode: str = "1777") -> None:
    _mount("tmpfs", target, "tmpfs", MS_NOSUID | MS_NODEV, f"size={size},mode={mode}")


def _copy_files(src: str, dest: str, uid: int) -> None:
    """``src``'s tree into ``dest`` (a tmpfs), owned by the sandbox's uid."""
    for here, dirs, files in os.walk(src):
        rel = os.path.relpath(here, src)
        out = dest if rel == "." else os.path.join(dest, rel)
        if rel != ".":
            os.mkdir(out, 0o755)
            os.chown(out, uid, uid)
        for name in files:
            path = os.path.join(here, name)
            if os.path.islink(path):
                continue
            target = os.path.join(out, name)
            with open(path, "rb") as fi, open(target, "wb") as fo:
                while True:
                    chunk = fi.read(1 << 20)
                    if not chunk:
                        break
                    fo.write(chunk)
            os.chmod(target, os.stat(path).st_mode & 0o755)
            os.chown(target, uid, uid)


def _loopback_up() -> None:
    SIOCSIFFLAGS, IFF_UP, IFF_LOOPBACK, IFF_RUNNING = 0x8914, 0x1, 0x8, 0x40
    import fcntl
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        fcntl.ioctl(s, SIOCSIFFLAGS,
                    struct.pack("16sH22x", b"lo", IFF_UP | IFF_LOOPBACK | IFF_RUNNING))


def build_root(req: dict) -> None:
    """In the new mount namespace (and PID namespace, for /proc): the sandbox's file tree,
    then pivot into it."""
    root, lim, uid = req["root"], req["limits"], req["uid"]
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    _mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,mode=0755")
    made: set[str] = set()
    ro = []
    # the private /tmp and home first, as bubblewrap's command has them: a bind made below
    # either (a course cloned under /tmp binds its venv and labkit there) stays seen
    for tmp in ("/tmp", "/home/student"):
        _dirs(root, tmp, made)
        _tmpfs(root + tmp, lim["tmp_bytes"])
    for system in ("/usr", "/etc", "/opt"):
        if os.path.isdir(system):
            _dirs(root, system, made)
            _ro_bind(system, root + system)
            ro.append(root + system)
    if req.get("hosts"):  # names for the loopback addresses (grading/trusted/sandbox.py)
        _ro_bind(req["hosts"], root + "/etc/hosts")
    for link in ("/bin", "/sbin", "/lib", "/lib64", "/lib32"):
        if os.path.islink(link):
            os.symlink(os.readlink(link), root + link)
        elif os.path.isdir(link):
            _dirs(root, link, made)
            _ro_bind(link, root + link)
            ro.append(root + link)
    for path in req["ro"]:   # a folder bound at its own path, or [source, path inside]
        src, path = (path, path) if isinstance(path, str) else path
        _dirs(root, path, made)
        _ro_bind(src, root + path)
        ro.append(root + path)
    work = req["workdir"]
    _dirs(root, work, made)
    _tmpfs(root + work, lim["scratch_bytes"])
    try:
        _copy_files(work, root + work, uid)
    except OSError as exc:
        if exc.errno in (28, 27):  # ENOSPC, EFBIG
            print(f"sandbox: its starting files do not fit in its {lim['scratch_bytes']}-byte "
                  "scratch folder", file=sys.stderr, flush=True)
            os._exit(EXIT_FILES)
        raise
    for path in req["rw"]:
        _dirs(root, path, made)
        _mount(path, root + path, None, MS_BIND | MS_REC)
    # /dev: the usual character devices of the host, bound one by one, and a tmpfs /dev/shm
    _dirs(root, "/dev", made)
    _mount("tmpfs", root + "/dev", "tmpfs", MS_NOSUID, "mode=0755,size=64k")
    for name in ("null", "zero", "full", "random", "urandom", "tty"):
        open(f"{root}/dev/{name}", "w").close()
        _mount(f"/dev/{name}", f"{root}/dev/{name}", None, MS_BIND)
    for name, target in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"),
                         ("stdout", "/proc/self/fd/1"), ("stderr", "/proc/self/fd/2")):
        os.symlink(target, f"{root}/dev/{name}")
    try:  # pseudo-terminals of its own, where the machine allows a new devpts instance
        os.mkdir(f"{root}/dev/pts")
        _mount("devpts", f"{root}/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC,
               "newinstance,ptmxmode=0666,mode=620")
        os.symlink("pts/ptmx", f"{root}/dev/ptmx")
    except OSError:
        pass
    os.mkdir(f"{root}/dev/shm")
    _tmpfs(f"{root}/dev/shm", lim["tmp_bytes"])
    os.mkdir(f"{root}/proc", 0o555)
    _mount("proc", f"{root}/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    _remount_ro(ro)
    os.chdir(root)
    _check(_c().syscall(155, b".", b"."), "pivot_root")  # SYS_pivot_root on x86-64
    _check(_c().umount2(b".", MNT_DETACH), "detach the old root")
    os.chdir("/")
    _mount(None, "/", None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)


def _drop_to(req: dict) -> None:
    """The kernel's process (and each worker's): rlimits, then the sandbox's uid with no
    capability left, then the seccomp filter."""
    import resource

    lim, uid = req["limits"], req["uid"]
    for what, value in ((resource.RLIMIT_AS, lim["memory_bytes"]),
                        (resource.RLIMIT_NPROC, req["nproc"]),
                        (resource.RLIMIT_FSIZE, lim["file_bytes"]),
                        (resource.RLIMIT_NOFILE, lim["open_files"]),
                        (resource.RLIMIT_CPU, lim["cpu_seconds"]),
                        (resource.RLIMIT_CORE, 0)):
        resource.setrlimit(what, (value, value))
    for cap in range(64):  # no capability can come back, from a file or otherwise
        if _c().prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 and ctypes.get_errno() == 22:
            break          # EINVAL: past the last capability this kernel knows
    if os.geteuid() == 0 and uid != 0:
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
    _check(_c().prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
    if req.get("seccomp"):
        install_filter(bytes.fromhex(req["seccomp"]))


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def install_filter(program: bytes) -> None:
    """Install a seccomp filter (grading/trusted/seccomp.py's program: an array of ``struct
    sock_filter``) on this process, and on all its threads: it holds for this process
    and everything it starts, and cannot be removed. Needs no_new_privs (or root)."""
    buf = ctypes.create_string_buffer(program, len(program))
    prog = _SockFprog(len(program) // 8, ctypes.addressof(buf))
    _check(_c().syscall(ctypes.c_long(SYS_SECCOMP), ctypes.c_long(SECCOMP_SET_MODE_FILTER),
                        ctypes.c_long(SECCOMP_FILTER_FLAG_TSYNC), ctypes.byref(prog)),
           "seccomp filter")


def _fresh_random() -> None:
    """Generators seeded at import are the server's: each kernel draws its own seeds, as a
    freshly started one would (Python's ``random`` reseeds itself after a fork)."""
    if "numpy" in sys.modules:
        sys.modules["numpy"].random.seed()
    if "torch" in sys.modules:
        sys.modules["torch"].seed()


def _run_kernel(req: dict) -> None:
    """Become ``python -m <module> <args>`` (the kernel command), ``python <script>
    <args>`` or ``python -c <code> <args>`` (a worker) in this process."""
    import atexit
    import runpy

    os.environ.clear()
    os.environ.update(req["env"])
    os.chdir(req["workdir"])
    sys.dont_write_bytecode = True
    _fresh_random()
    code = 0
    # sys.path as Python makes it for the command: its first entry, then PYTHONPATH's
    extra = [p for p in req["env"].get("PYTHONPATH", "").split(os.pathsep) if p]

    def path_from(first: str) -> None:
        sys.path[:] = [first, *extra, *(p for p in sys.path[1:] if p not in extra)]
        for p in extra:   # looked up (and not found) by the server, before this tree existed
            sys.path_importer_cache.pop(p, None)

    try:
        if "code" in req:     # python -c code args
            sys.argv = ["-c"] + req["args"]
            path_from("")
            exec(compile(req["code"], "<string>", "exec"), {"__name__": "__main__"})
        elif "module" in req:   # python -m module args
            sys.argv = [req["module"]] + req["args"]
            path_from(os.getcwd())
            runpy.run_module(req["module"], run_name="__main__", alter_sys=True)
        else:                 # python script args
            sys.argv = [req["path"]] + req["args"]
            path_from(os.path.dirname(os.path.abspath(req["path"])))
            runpy.run_path(req["path"], run_name="__main__")
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:  # noqa: BLE001 (reported as a crashed kernel would be)
        import traceback
        traceback.print_exc()
        code = 1
    try:
        atexit._run_exitfunctions()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:  # noqa: BLE001 (a stream the code closed or replaced)
                pass
        os._exit(code)


def _why(exc: BaseException) -> str:
    """An exception as one line that says what it is and where it was raised, even when it
    carries no message (a sandbox once failed with an empty 'could not be made: ')."""
    import traceback

    where = traceback.extract_tb(exc.__traceback__)[-1:] if exc.__traceback__ else []
    at = f" (at {where[0].name}, line {where[0].lineno}: {where[0].line})" if where else ""
    return f"{type(exc).__name__}: {exc}{at}"


def _pid1(req: dict) -> None:
    """PID 1 of the sandbox: builds its file tree, starts the kernel, relays SIGINT and
    SIGTERM to it, forks workers on request (:func:`_supervise`), reaps orphans, and ends
    (and the namespace with it) when the kernel does."""
    _check(_c().prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0), "pdeathsig")
    record = -1
    try:
        if req.get("record"):   # a file of the grader's, opened while the host's tree is seen
            record = os.open(req["record"], os.O_WRONLY | os.O_APPEND | os.O_CLOEXEC)
        build_root(req)
        _c().sethostname(b"localhost", 9)
        _loopback_up()
    except Exception as exc:  # noqa: BLE001
        print(f"sandbox: could not be made: {_why(exc)}", file=sys.stderr, flush=True)
        os._exit(EXIT_SETUP)
    try:
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind("\0" + WORKER_SOCKET)  # abstract: seen only in this network namespace
        listener.listen(64)
    except OSError:
        listener = None       # labkit.workers then starts its workers afresh
    kernel = os.fork()
    if kernel == 0:
        if record >= 0:
            os.close(record)
        if listener is not None:
            listener.close()
            req = dict(req, env={**req["env"], WORKER_ENV: WORKER_SOCKET})
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        # SIGINT ignored, as bubblewrap's kernel starts (ipykernel takes it while a cell runs)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        _drop_to(req)
        _run_kernel(req)
    _note(record, b"k%d\n" % kernel)   # the kernel: the process whose memory the judge may read
    signal.signal(signal.SIGINT, lambda *_: os.kill(kernel, signal.SIGINT))
    signal.signal(signal.SIGTERM, lambda *_: os.kill(kernel, signal.SIGTERM))
    _supervise(req, kernel, listener, record)


def _note(record: int, line: bytes) -> None:
    """A line of the sandbox's record (``k<pid>`` the kernel, ``+pid`` a worker forked,
    ``-pid`` one ended; pids as the sandbox sees them): the judge's word on which process
    is which, written by PID 1 alone."""
    if record >= 0:
        try:
            os.write(record, line)
        except OSError:
            pass


def _supervise(req: dict, kernel: int, listener: socket.socket | None, record: int = -1) -> None:
    """PID 1's loop. Reaps every process that ends in the sandbox and exits with the
    kernel's status when the kernel ends. On ``listener`` it forks, for each connection,
    a worker for labkit.workers (:func:`_worker`): PID 1 has torch imported and never ran
    course or student code, so a worker costs a fork, not an interpreter and its imports.
    PID 1 reads nothing a connection sends (the forked child reads the request, after it
    has dropped to the sandbox's uid); it writes the worker's exit status back, without
    waiting, and kills the worker's process group when the connection's other end closes."""
    import select

    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    os.write(wake_w, b"\0")  # reap once now: the kernel may have ended before the handler
    poll = select.poll()
    poll.register(wake_r, select.POLLIN)
    if listener is not None:
        poll.register(listener, select.POLLIN)
    workers: dict[int, socket.socket | None] = {}    # worker pid -> its connection
    by_fd: dict[int, int] = {}                        # a live connection's fd -> its worker
    while True:
        # Connections are closed only once the whole batch of events is handled: a worker's
        # end and its client's hang-up can come in one batch, and a number closed early could
        # be reused by a connection accepted in the same batch and read as the old one's.
        done: list[socket.socket] = []

        def drop(pid: int) -> None:
            conn = workers.get(pid)
            if conn is not None:
                poll.unregister(conn)
                by_fd.pop(conn.fileno(), None)
                done.append(conn)
                workers[pid] = None

        for fd, _ in poll.poll():
            if fd == wake_r:
                os.read(wake_r, 512)
                while True:
                    try:
                        pid, status = os.waitpid(-1, os.WNOHANG)
                    except ChildProcessError:
                        pid = 0
                    if pid == 0:
                        break
                    if pid == kernel:
                        os._exit(os.waitstatus_to_exitcode(status) & 0xFF
                                 if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))
                    if pid in workers:
                        _note(record, b"-%d\n" % pid)
                    conn = workers.get(pid)
                    if conn is not None:
                        try:
                            conn.send(b"exit %d\n" % os.waitstatus_to_exitcode(status),
                                      socket.MSG_DONTWAIT)
                        except OSError:
                            pass
                    drop(pid)
                    workers.pop(pid, None)
            elif listener is not None and fd == listener.fileno():
                try:
                    conn, _ = listener.accept()
                except OSError:
                    continue
                live = sum(c is not None for c in workers.values())
                pid = -1
                if live < MAX_WORKERS:
                    try:
                        pid = os.fork()
                    except OSError:    # the submission's process limit
                        pass
                if pid < 0:
                    try:
                        conn.send(b"refused %d workers are running (at most %d), or no "
                                  b"process is left to fork\n" % (live, MAX_WORKERS),
                                  socket.MSG_DONTWAIT)
                    except OSError:
                        pass
                    conn.close()
                    continue
                if pid == 0:
                    _worker(req, conn)
                _note(record, b"+%d\n" % pid)
                workers[pid] = conn
                by_fd[conn.fileno()] = pid
                poll.register(conn, select.POLLRDHUP)
            else:  # the client's end closed (it died, or was killed): the worker goes too
                pid = by_fd.get(fd)
                if pid is None:    # its worker ended earlier in this batch
                    continue
                drop(pid)
                for kill in (os.killpg, os.kill):
                    try:
                        kill(pid, signal.SIGKILL)
                    except OSError:
                        pass
        for conn in done:
            conn.close()


def _worker(req: dict, conn: socket.socket) -> None:
    """A worker forked by PID 1: its own session, the kernel's walls (rlimits, uid, no
    capability, the seccomp filter), then the request (``python -c code args``: its
    environment, folder and file descriptors, sent by labkit.workers' client), read only
    now. Never returns."""
    try:
        signal.set_wakeup_fd(-1)
        for sig in (signal.SIGTERM, signal.SIGCHLD):
            signal.signal(sig, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        keep = conn.fileno()
        os.closerange(3, keep)
        os.closerange(keep + 1, 1 << 16)
        os.setsid()
        _drop_to(req)
        _check(_c().prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0), "pdeathsig")
        ask, fds = _recv(conn, 16)
        if ask is None:       # the client went before it asked
            os._exit(EXIT_SETUP)
        if not isinstance(ask, dict) or not isinstance(ask.get("fds"), list) \
                or len(ask["fds"]) != len(fds) \
                or not all(isinstance(n, int) and 0 <= n < 1024 for n in ask["fds"]):
            raise ValueError("a worker request is code, args, env, cwd and fds")
        conn.sendall(b"pid %d\n" % os.getpid())
        conn.close()
        import fcntl
        above = max(ask["fds"] + [2]) + 1   # out of the way of every target, then into place
        moved = [fcntl.fcntl(fd, fcntl.F_DUPFD, above) for fd in fds]
        for fd in fds:
            os.close(fd)
        for src, dest in zip(moved, ask["fds"]):
            os.dup2(src, dest)
        for src in moved:
            os.close(src)
        _run_kernel({"env": ask["env"], "workdir": ask["cwd"], "code": ask["code"],
                     "args": ask["args"]})
    except BaseException as exc:  # noqa: BLE001
        try:
            print(f"sandbox: the worker could not be started: {exc}", file=sys.stderr,
                  flush=True)
        finally:
            os._exit(EXIT_SETUP)


def _sandbox(req: dict, conn: socket.socket, stdio: list[int]) -> None:
    """The server's child for one kernel (still in the host's PID namespace)."""
    _check(_c().prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0), "pdeathsig")
    for i, fd in enumerate(stdio):
        os.dup2(fd, i)
    for folder in req["cgroups"]:
        with open(os.path.join(folder, "cgroup.procs"), "w") as f:
            f.write(str(os.getpid()))
    flags = CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS
    _check(_c().unshare(flags), "unshare")
    try:
        _check(_c().unshare(CLONE_NEWCGROUP), "unshare cgroup")
    except OSError:
        pass
    first = os.fork()
    if first == 0:
        os.closerange(3, 1 << 16)
        _pid1(req)
    _send(conn, {"pid": first})
    conn.close()
    os.closerange(3, 1 << 16)
    _, status = os.waitpid(first, 0)
    os._exit(os.waitstatus_to_exitcode(status) & 0xFF if os.WIFEXITED(status)
             else 128 + os.WTERMSIG(status))


# ------------------------------------------------------------------------- the server

def serve(path: str) -> None:
    import selectors

    # as ipykernel will: its inline backend, read by matplotlib when it is imported
    os.environ.setdefault("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    for name in PRELOAD:
        try:
            __import__(name)
        except Exception:  # noqa: BLE001 (a library that does not import is imported late)
            pass
    _check(_c().prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0), "pdeathsig")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(64)
    sel = selectors.DefaultSelector()
    sel.register(listener, selectors.EVENT_READ)
    children: dict[int, socket.socket] = {}      # server's child pid -> its client
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    sel.register(wake_r, selectors.EVENT_READ)
    print("ready", flush=True)
    while True:
        for key, _ in sel.select():
            if key.fileobj is listener:
                conn, _ = listener.accept()
                try:
                    req, fds = _recv(conn, 3)
                    if req is None or len(fds) != 3:
                        raise ValueError("bad request")
                except (OSError, ValueError):
                    conn.close()
                    continue
                pid = os.fork()
                if pid == 0:
                    sel.close()
                    listener.close()
                    signal.set_wakeup_fd(-1)
                    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                    try:
                        _sandbox(req, conn, fds)
                    except BaseException as exc:  # noqa: BLE001
                        print(f"sandbox: could not be made: {_why(exc)}", file=sys.stderr,
                              flush=True)
                    os._exit(EXIT_SETUP)
                for fd in fds:
                    os.close(fd)
                children[pid] = conn
                sel.register(conn, selectors.EVENT_READ, pid)
            elif key.fileobj == wake_r:
                os.read(wake_r, 512)
                while children:
                    pid, status = os.waitpid(-1, os.WNOHANG)
                    if pid == 0:
                        break
                    conn = children.pop(pid, None)
                    if conn is not None:
                        sel.unregister(conn)
                        try:
                            _send(conn, {"exit": os.waitstatus_to_exitcode(status)})
                        except OSError:
                            pass
                        conn.close()
            else:  # a client: the first message is read by the client's side; EOF = it died
                conn, pid = key.fileobj, key.data
                try:
                    data = conn.recv(1, socket.MSG_PEEK)
                except OSError:
                    data = b""
                if not data:
                    sel.unregister(conn)
                    conn.close()
                    children[pid] = None
                    _kill_tree(pid)
                else:
                    conn.recv(4096)


def _kill_tree(pid: int) -> None:
    """The sandbox's PID 1 (and so everything in it) and the server's child."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            for child in f.read().split():
                os.kill(int(child), signal.SIGKILL)
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass


# ------------------------------------------------------------------------- the client

def client(server: str, pid_file: str, request_file: str) -> int:
    """The kernel's process as jupyter_client sees it (standard library only)."""
    with open(request_file) as f:
        req = json.load(f)
    os.unlink(request_file)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(server)
    data = json.dumps(req).encode()
    socket.send_fds(sock, [struct.pack("!I", len(data)) + data], [0, 1, 2])
    reply, _ = _recv(sock)
    if not reply or "pid" not in reply:
        print("sandbox: the fork server refused the kernel", file=sys.stderr)
        return EXIT_SETUP
    inner = reply["pid"]
    with open(pid_file + ".tmp", "w") as f:
        f.write(str(inner))
    os.replace(pid_file + ".tmp", pid_file)

    def relay(sig, _frame):
        try:
            os.kill(inner, sig)
        except OSError:
            pass

    signal.signal(signal.SIGINT, relay)
    signal.signal(signal.SIGTERM, relay)
    while True:  # a relayed signal does not break the read (PEP 475 retries it)
        reply, _ = _recv(sock)
        if reply is None:
            return EXIT_SETUP
        if "exit" in reply:
            code = reply["exit"]
            return code if code >= 0 else 128 - code


def main(argv: list[str]) -> int:
    if argv[0] == "serve":
        serve(argv[1])
        return 0
    if argv[0] == "client":
        return client(*argv[1:4])
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
