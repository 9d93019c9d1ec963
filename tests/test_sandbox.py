"""grading/trusted/sandbox.py: what a student's code can see, reach and leave behind while graded.

Each attack runs twice where that is safe: outside the sandbox (it works: the test
could fail) and inside (it does not). The kernel tests drive a real ipykernel in the
sandbox through nbclient, as nbgrader does.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from types import SimpleNamespace

import nbformat
import pytest

from grading.trusted import sandbox, seccomp
from grading.course import REPO

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="the sandbox is Linux-only")
MARK = "sandbox-test-orphan-7f3a"


@pytest.fixture(scope="module")
def usable():
    why = sandbox.unavailable()
    assert why is None, f"no sandbox on this machine: {why} (make system installs bubblewrap)"


@pytest.fixture(params=["bubblewrap", "forked"])
def launch(request, monkeypatch):
    """Each sandbox made both ways: by bubblewrap, and forked from the fork server (as
    root; grading/trusted/forkserver.py), which must give the same walls."""
    if request.param == "forked" and os.geteuid() != 0:
        pytest.skip("the fork server needs root")
    monkeypatch.setenv(sandbox.FORKSERVER_ENV, "1" if request.param == "forked" else "0")
    return request.param


@pytest.fixture
def box(tmp_path, usable, launch):
    """The folder of files a sandbox starts with (copied into its tmpfs working folder)."""
    work = tmp_path / "work"
    work.mkdir()
    os.chmod(tmp_path, 0o755)
    os.chmod(work, 0o755)
    return work


def run_py(code: str, work: Path | None, env: dict | None = None, timeout: float = 120,
           limits: sandbox.Limits = sandbox.Limits(), cgroups: bool = True):
    """Run ``code`` with the venv's Python, in a sandbox (work given) or outside it."""
    import tempfile

    script = (work or Path(tempfile.mkdtemp(prefix="probe-"))) / "probe.py"
    script.write_text(textwrap.dedent(code))
    os.chmod(script, 0o644)
    argv = [sys.executable, str(script)]
    if work is None:
        return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=env)
    with sandbox.Sandbox(limits, cgroups=cgroups) as sb:
        return sb.run(argv, work, env=env, capture_output=True, text=True, timeout=timeout)


def uid_processes(uid: int) -> list[int]:
    """Processes on this machine running as ``uid``."""
    out = []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                if entry.stat().st_uid == uid:
                    out.append(int(entry.name))
            except OSError:
                pass
    return out


needs_cgroups = pytest.mark.skipif(
    not {"memory", "pids", "cpu"} <= set(sandbox.cgroup_support()[1]),
    reason=f"no usable cgroups here: {sandbox.cgroup_support()[2]}")
needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="a uid per sandbox needs root")


# The code a student would run to find the instructor's solutions: walk up from where it
# runs and from where the installed packages live, and look in the usual places.
FIND_SECRETS = """
import json, os, sys
import labkit
found = []
starts = [os.getcwd(), os.path.dirname(labkit.__file__), sys.prefix, "/", "/tmp", "/work",
          "/root", "/home"]
for start in starts:
    here = start
    for _ in range(8):
        for name in ("solutions", "grading"):
            p = os.path.join(here, name)
            if os.path.isdir(p):
                found.append(p)
        here = os.path.dirname(here)
for path in ("%s",):
    if os.path.exists(path):
        found.append(path)
print(json.dumps(sorted(set(found))))
"""


def test_solutions_and_gradebooks_are_not_on_the_sandbox_filesystem(box, monkeypatch):
    code = FIND_SECRETS % (REPO / "solutions")
    monkeypatch.chdir(REPO / "labkit")  # outside, the probe starts from inside the course
    outside = run_py(code, None)
    assert str(REPO / "solutions") in json.loads(outside.stdout), "the probe finds them outside"
    inside = run_py(code, box)
    assert inside.returncode == 0, inside.stderr
    assert json.loads(inside.stdout) == [], f"the sandbox shows {inside.stdout}"


def test_a_script_named_relative_to_its_folder_runs_from_there(box, monkeypatch):
    """``python probe.py`` in a sandbox started from ``box`` runs box's probe.py, as a shell
    in that folder would (the fork server once looked for it in the grader's folder)."""
    (box / "probe.py").write_text("import os, sys; print(os.getcwd() == sys.path[0], sys.argv)")
    os.chmod(box / "probe.py", 0o644)
    monkeypatch.chdir(REPO)
    with sandbox.Sandbox() as sb:
        got = sb.run([sys.executable, "probe.py", "x"], box, capture_output=True, text=True,
                     timeout=120)
    assert got.returncode == 0, got.stderr[-2000:]
    assert got.stdout.split() == ["True", "['probe.py',", "'x']"], got.stdout


def test_a_course_under_tmp_is_seen_inside(box, tmp_path, monkeypatch):
    """A course cloned under /tmp: the venv and labkit it binds read-only there stay
    visible under the sandbox's own /tmp (the fork server mounted that tmpfs over them,
    and every sandboxed kernel failed to start: 'mount None on .../tmp/...: No such file')."""
    lib = tmp_path / "course" / ".venv"
    lib.mkdir(parents=True)
    (lib / "marker.txt").write_text("bound")
    for folder in (tmp_path, lib.parent, lib):
        os.chmod(folder, 0o755)
    os.chmod(lib / "marker.txt", 0o644)
    roots = sandbox._python_roots()
    monkeypatch.setattr(sandbox, "_python_roots", lambda: roots + [lib])
    got = run_py(f"""
        import os
        print(open({str(lib / "marker.txt")!r}).read(), os.access("/tmp", os.W_OK))
    """, box)
    assert got.returncode == 0, got.stderr[-2000:]
    assert got.stdout.split() == ["bound", "True"], got.stdout


def test_environment_is_cleared(box):
    env = dict(os.environ, COURSE_DB_URL="postgresql://grader:s3cret@db/course",
               NBGRADER_EXECUTION="autograde")
    got = run_py("import os, json; print(json.dumps(dict(os.environ)))", box,
                 env=env)
    seen = json.loads(got.stdout)
    assert "s3cret" not in got.stdout and "COURSE_DB_URL" not in seen
    assert seen["NBGRADER_EXECUTION"] == "autograde", "grading mode still reaches the kernel"
    assert seen["HOME"] == "/home/student"


def test_no_network_beyond_its_own_loopback(box):
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    port = server.getsockname()[1]
    try:
        got = run_py(f"""
            import socket
            for host in ("127.0.0.1", "10.0.0.1", "8.8.8.8"):
                try:
                    socket.create_connection((host, {port}), timeout=2)
                    print("reached", host)
                except OSError as exc:
                    print("no", host, type(exc).__name__)
            s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1)   # its own loopback
            c = socket.create_connection(s.getsockname()); print("own loopback ok")
        """, box)
        server.settimeout(0.5)
        with pytest.raises(socket.timeout):
            server.accept()
    finally:
        server.close()
    assert "reached" not in got.stdout and "own loopback ok" in got.stdout, got.stdout + got.stderr


def test_writes_only_its_scratch_folder(box):
    targets = [REPO / "sandbox-probe.txt", REPO / "labkit" / "sandbox-probe.txt",
               Path(sys.prefix) / "sandbox-probe.txt", Path("/etc/sandbox-probe.txt")]
    got = run_py(f"""
        for path in {[str(t) for t in targets]!r}:
            try:
                open(path, "w").write("x"); print("wrote", path)
            except OSError as exc:
                print("refused", path, exc.errno)
        open("mine.txt", "w").write("ok"); print("wrote mine")
    """, box)
    assert "wrote /" not in got.stdout and "wrote mine" in got.stdout, got.stdout + got.stderr
    assert not any(t.exists() for t in targets)
    assert not (box / "mine.txt").exists(), "its working folder is on the host's disk"


def test_runs_as_a_uid_of_its_own_without_capabilities_when_graded_as_root(box):
    code = """
        import os
        print(os.getuid(), os.getgid())
        print(open("/proc/self/status").read().split("CapEff:")[1].split()[0])
    """
    with sandbox.Sandbox() as other:  # a second sandbox open at the same time
        got = run_py(code, box)
        other_uid = other.uid
    uid, gid, caps = got.stdout.split()
    if os.geteuid() == 0:
        assert uid == gid and sandbox.UID_BASE <= int(uid) < sandbox.UID_BASE + sandbox.SLOTS
        assert int(uid) != other_uid, "two sandboxes open at once share a uid"
    assert int(caps, 16) == 0, f"effective capabilities inside: {caps}"


def test_double_forked_processes_end_with_the_sandbox(box):
    got = run_py(f"""
        import os, subprocess, sys
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(300)",
                                          "{MARK}"])  # the mark on its own command line
            os._exit(0)
        os.wait()
        print("left a grandchild behind")
    """, box)
    assert "left a grandchild" in got.stdout, got.stderr
    left = _still_running(MARK)
    assert not left, f"processes outlived the sandbox: {left}"


def test_processes_files_and_memory_are_bounded(box):
    limits = sandbox.Limits(processes=64, file_bytes=1 << 20, memory_bytes=2 << 30)
    script = box / "probe.py"
    script.write_text(textwrap.dedent("""
        import os, resource
        kids = 0
        for _ in range(200):
            try:
                pid = os.fork()
            except OSError:
                break
            if pid == 0:
                import time; time.sleep(5); os._exit(0)
            kids += 1
        print("forked", kids)
        try:
            with open("big.bin", "wb") as f:
                f.write(b"x" * (4 << 20))
            print("wrote 4 MiB")
        except OSError as exc:
            print("file capped", exc.errno)
        try:
            blob = bytearray(3 << 30); print("allocated 3 GiB")
        except MemoryError:
            print("memory capped")
    """))
    with sandbox.Sandbox(limits) as sb:
        got = sb.run([sys.executable, str(script)], box, capture_output=True, text=True,
                     timeout=120)
    forked = int(got.stdout.split("forked")[1].split()[0])
    assert 0 < forked < 64, got.stdout + got.stderr
    assert "file capped" in got.stdout and "memory capped" in got.stdout, got.stdout


def test_gloo_process_group_runs_inside(box):
    """torch.distributed between the sandbox's own processes (03's ring needs it), quietly:
    the loopback addresses have names without the DNS the sandbox cannot reach (torch
    warned on stderr, in the learner's feedback, for each worker that joined)."""
    got = run_py("""
        import socket
        import torch, torch.distributed as dist
        from labkit import workers

        def hello(rank, world_size):
            t = torch.tensor([float(rank + 1)])
            dist.all_reduce(t)
            return t.item()

        print(workers.run(hello, 2, timeout=60))
        for address in ("::ffff:127.0.0.1", "::1"):
            print(address, socket.getnameinfo((address, 0, 0, 0), socket.NI_NAMEREQD)[0])
    """, box, timeout=180)
    assert got.returncode == 0, got.stderr[-2000:]
    assert "3.0" in got.stdout
    assert "::ffff:127.0.0.1 localhost\n::1 localhost" in got.stdout, got.stdout
    assert "c10d" not in got.stderr, got.stderr[-2000:]


# ------------------------------------------------- system calls (grading/trusted/seccomp.py)

NEWUSER = 0x10000000
# One call of each refused system call, with arguments a kernel that let it through would
# answer otherwise than the filter does (a bad flag, descriptor or pointer), so that
# nothing is done even where the call is not refused: its number and arguments.
SYSCALL_PROBES = {
    "unshare": [NEWUSER], "clone": [NEWUSER | 17], "clone3": [0, 0], "setns": [-1, 0],
    "mount": [0, 0, 0, 0, 0], "umount2": [0, 0xFFFFFFFF], "pivot_root": [0, 0],
    "chroot": [0], "open_tree": [-1, 0, 0xFFFFFFFF], "move_mount": [-1, 0, -1, 0, 0xFFFFFFFF],
    "fsopen": [0, 0xFFFFFFFF], "fsconfig": [-1, 0xFF, 0, 0, 0], "fsmount": [-1, 0xFFFFFFFF, 0],
    "fspick": [-1, 0, 0xFFFFFFFF], "mount_setattr": [-1, 0, 0xFFFFFFFF, 0, 0],
    "keyctl": [-1, 0, 0, 0, 0], "add_key": [0, 0, 0, 0, 0], "request_key": [0, 0, 0, 0],
    "bpf": [-1, 0, 0], "perf_event_open": [0, 0, -1, -1, 0], "userfaultfd": [0xFFFFFFFF],
    "io_uring_setup": [0, 0], "io_uring_enter": [-1, 0, 0, 0, 0, 0],
    "io_uring_register": [-1, 0, 0, 0], "lookup_dcookie": [0, 0, 0],
    "ptrace": [-1, 0, 0, 0], "process_vm_readv": [0, 0, 0, 0, 0, 1],
    "process_vm_writev": [0, 0, 0, 0, 0, 1], "kexec_load": [0, 0, 0, 0xFFFFFFFF],
    "kexec_file_load": [-1, -1, 0, 0, 0xFFFFFFFF], "init_module": [0, 0, 0],
    "finit_module": [-1, 0, 0xFFFFFFFF], "delete_module": [0, 0xFFFFFFFF],
    "open_by_handle_at": [-1, 0, 0], "name_to_handle_at": [-1, 0, 0, 0, 0xFFFFFFFF],
    "swapon": [0, 0], "swapoff": [0], "reboot": [0, 0, 0, 0], "acct": [1],
    "quotactl": [0xFFFFFFFF, 0, 0, 0], "quotactl_fd": [-1, 0, 0, 0], "settimeofday": [1, 0],
    "clock_settime": [-1, 0], "clock_adjtime": [-1, 0], "adjtimex": [0], "iopl": [4],
    "ioperm": [0x10000, 1, 1], "personality": [0x0040000],   # ADDR_NO_RANDOMIZE
}

# Each probe in a child of its own (an unshare that went through changes only that child);
# prints {name: errno, or 0 where the call went through}.
CALL_EACH = """
import ctypes, json, os
libc = ctypes.CDLL(None, use_errno=True)

def call(nr, args):
    pid = os.fork()
    if pid == 0:
        got = libc.syscall(ctypes.c_long(nr), *(ctypes.c_long(a) for a in args))
        os._exit(0 if got >= 0 else ctypes.get_errno())   # a clone's child: 0 at once
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])

probes = json.loads(%r)
print(json.dumps({name: call(nr, args) for name, (nr, args) in probes.items()}))
"""


def _probes() -> dict:
    return {name: (seccomp.REFUSED[name], args) for name, args in SYSCALL_PROBES.items()}


def _refusal(name: str) -> int:
    return errno.ENOSYS if name in seccomp.ENOSYS_CALLS else errno.EPERM


def test_every_refused_call_has_a_probe_and_its_x86_64_number():
    assert set(SYSCALL_PROBES) == set(seccomp.REFUSED)
    header = Path("/usr/include/x86_64-linux-gnu/asm/unistd_64.h")
    if not header.exists():
        pytest.skip("no asm/unistd_64.h to check the numbers against")
    numbers = dict(line.split()[1:3] for line in header.read_text().splitlines()
                   if line.startswith("#define __NR_"))
    assert {n: int(numbers["__NR_" + n]) for n in seccomp.REFUSED} == seccomp.REFUSED


@needs_root
def test_the_filter_itself_refuses_each_listed_call(tmp_path):
    """Outside any sandbox, as root (where the kernel itself refuses none of the probes
    for want of a capability): each probe is answered otherwise without the filter, and
    with the refusal under it; a call from outside x86-64's numbers (x32, which a kernel
    may not have at all) is refused too."""
    probes = {**_probes(), "getpid (x32)": (seccomp.X32_SYSCALL_BIT | 39, [])}
    script = tmp_path / "calls.py"
    script.write_text(CALL_EACH % json.dumps(probes))
    free = json.loads(subprocess.run([sys.executable, str(script)], capture_output=True,
                                     text=True, timeout=60, check=True).stdout)
    filtered = subprocess.run(
        [sys.executable, "-c", "import sys, runpy, ctypes; from grading.trusted import seccomp, "
         "forkserver; ctypes.CDLL(None).prctl(38, 1, 0, 0, 0); "
         "forkserver.install_filter(seccomp.program()); sys.argv = sys.argv[1:]; "
         "runpy.run_path(sys.argv[0], run_name='__main__')", str(script)],
        capture_output=True, text=True, timeout=60, cwd=str(REPO))
    assert filtered.returncode == 0, filtered.stderr[-2000:]
    under = json.loads(filtered.stdout)
    refusal = {name: _refusal(name) for name in SYSCALL_PROBES} | {"getpid (x32)": errno.ENOSYS}
    assert under == refusal
    assert not {n for n in SYSCALL_PROBES if free[n] == refusal[n]}, \
        f"answered as the filter would without it: {free}"


def test_new_user_namespaces_are_refused_inside(box):
    """unshare(CLONE_NEWUSER) goes through outside (as anyone, where the machine allows
    user namespaces) and is refused inside, as are clone with that flag and clone3; fork,
    threads and subprocesses still work."""
    code = """
        import ctypes, os, subprocess, sys, threading
        libc = ctypes.CDLL(None, use_errno=True)
        pid = os.fork()
        if pid == 0:
            os._exit(0 if libc.unshare(%d) == 0 else ctypes.get_errno())
        print("unshare", os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
        t = threading.Thread(target=print, args=("thread",)); t.start(); t.join()
        print(subprocess.run([sys.executable, "-c", "print('subprocess')"], capture_output=True,
                             text=True).stdout.strip())
        print(open("/proc/self/status").read().split("Seccomp:")[1].split()[0])
    """ % NEWUSER
    outside = run_py(code, None)
    assert outside.stdout.split()[:2] == ["unshare", "0"], outside.stdout + outside.stderr
    got = run_py(code, box)
    assert got.returncode == 0, got.stderr[-2000:]
    assert got.stdout.split() == ["unshare", str(errno.EPERM), "thread", "subprocess", "2"], \
        got.stdout


def test_each_refused_call_is_refused_inside(box):
    got = run_py(CALL_EACH % json.dumps(_probes()), box)
    assert got.returncode == 0, got.stderr[-2000:]
    answers = json.loads(got.stdout)
    wrong = {name: answers[name] for name in SYSCALL_PROBES if answers[name] != _refusal(name)}
    assert not wrong, f"not refused inside (errno, 0: went through): {wrong}"


def test_workers_are_filtered_too(box, launch):
    """labkit.workers' processes (forked by the sandbox's PID 1, or started afresh by
    bubblewrap's kernel) are under the filter and cannot make a user namespace."""
    got = run_py("""
        import ctypes, json, os
        from labkit import workers

        def probe(rank, world_size):
            libc = ctypes.CDLL(None, use_errno=True)
            refused = libc.unshare(%d) != 0 and ctypes.get_errno()
            status = open("/proc/self/status").read()
            return [os.getppid(), refused, status.split("Seccomp:")[1].split()[0]]

        print(json.dumps(workers.run(probe, 2, timeout=60)))
    """ % NEWUSER, box, timeout=180)
    assert got.returncode == 0, got.stderr[-2000:]
    answers = json.loads(got.stdout)
    for ppid, refused, mode in answers:
        assert refused == errno.EPERM and mode == "2", answers
        if launch == "forked":
            assert ppid == 1, f"not forked by the sandbox's PID 1: {answers}"


def test_pid1_records_the_workers_it_forks_and_nothing_else(box, launch):
    """A forked sandbox's PID 1 lists, in a file of the grader's, the kernel, each worker it
    forks and each that ends (pids as the sandbox sees them): the judge's meters measure those
    processes, never the ones a notebook names. A process the kernel forks itself is not on
    the list."""
    if launch != "forked":
        pytest.skip("the list is kept by a forked sandbox's PID 1")
    script = box / "probe.py"
    script.write_text(textwrap.dedent("""
        import json, os, time
        from labkit import workers

        child = os.fork()
        if child == 0:
            time.sleep(0.2)
            os._exit(0)
        ranks = workers.run(lambda rank, world_size: os.getpid(), 2, timeout=60)
        os.waitpid(child, 0)
        print(json.dumps({"ranks": ranks, "child": child, "kernel": os.getpid()}))
    """))
    os.chmod(script, 0o644)
    with sandbox.Sandbox() as sb:
        got = sb.run([sys.executable, str(script)], box, capture_output=True, text=True,
                     timeout=180)
        assert got.returncode == 0, got.stderr[-2000:]
        record = sb.workers_record.read_text().split()
    seen = json.loads(got.stdout)
    assert record[0] == f"k{seen['kernel']}", record   # the process PID 1 started the kernel as
    record = record[1:]
    assert sorted(record) == sorted([f"+{p}" for p in seen["ranks"]] + [f"-{p}" for p in seen["ranks"]])
    assert record.index(f"+{seen['ranks'][0]}") < record.index(f"-{seen['ranks'][0]}")
    assert f"+{seen['child']}" not in record


# ------------------------------------------------- limits per submission as a whole

HOG = """
import json, os, select, time
n = {n}
release_r, release_w = os.pipe()
report_r, report_w = os.pipe()
kids = []
for i in range(3):
    pid = os.fork()
    if pid == 0:
        os.close(release_w)
        blob = b"\\1" * n                      # touched: really held
        os.write(report_w, b"%d\\n" % i)
        os.read(release_r, 1)                  # hold it until released
        os._exit(0)
    kids.append(pid)
os.close(report_w)
held, dead, buf = set(), set(), b""
deadline = time.monotonic() + 300
while len(held | dead) < 3 and time.monotonic() < deadline:
    if select.select([report_r], [], [], 0.2)[0]:
        buf += os.read(report_r, 100)
        held |= {{int(x) for x in buf.split()}}
    for i, pid in enumerate(kids):
        if i not in dead and os.waitpid(pid, os.WNOHANG)[0]:
            dead.add(i)
time.sleep(1)  # let the kernel settle who is killed
for i, pid in enumerate(kids):
    if i not in dead and os.waitpid(pid, os.WNOHANG)[0]:
        dead.add(i)
print(json.dumps({{"held_alive": sorted(held - dead), "killed": sorted(dead)}}), flush=True)
os.close(release_w)
for i, pid in enumerate(kids):
    if i not in dead:
        os.waitpid(pid, 0)
"""


@needs_cgroups
def test_memory_is_capped_for_the_submission_as_a_whole(box):
    """Three children of 1.5 GiB each under a 2 GiB cap: never more than one holds its
    memory at a time (per-process limits let all three hold 4.5 GiB), and the grader
    is unharmed."""
    n = 3 << 29
    limits = sandbox.Limits(memory_bytes=2 << 30)
    got = run_py(HOG.format(n=n), box, limits=limits, timeout=600)
    assert got.stdout.strip(), f"the sandbox printed nothing: {got.stderr[-2000:]}"
    out = json.loads(got.stdout.strip().splitlines()[-1])
    assert len(out["held_alive"]) * n <= limits.memory_bytes, (
        f"{len(out['held_alive'])} children held {len(out['held_alive']) * n >> 20} MiB at once "
        f"under a {limits.memory_bytes >> 20} MiB cap")
    assert out["killed"], "no child was refused"


def _bomb_and_threads(box, cgroups: bool):
    limits = sandbox.Limits(processes=64)
    bomb = box / "bomb.py"
    bomb.write_text(textwrap.dedent("""
        import os, sys, time
        kids = 0
        for _ in range(500):
            try:
                pid = os.fork()
            except OSError:
                break
            if pid == 0:
                time.sleep(600); os._exit(0)
            kids += 1
        print("forked", kids, flush=True)
        time.sleep(600)
    """))
    os.chmod(bomb, 0o644)
    threads = """
        import threading, time
        ts = [threading.Thread(target=time.sleep, args=(0.5,)) for _ in range(16)]
        for t in ts: t.start()
        for t in ts: t.join()
        print("started", len(ts), "threads")
    """
    with sandbox.Sandbox(limits, cgroups=cgroups) as sb:
        if cgroups:
            assert sb.cgroup is not None, sb.cgroup_error
        proc = subprocess.Popen(sb.command([sys.executable, str(bomb)], box),
                                preexec_fn=sb.preexec, stdout=subprocess.PIPE, text=True)
        try:
            line = proc.stdout.readline()  # ready: the bomb holds every process it could
            assert line.startswith("forked"), line
            forked = int(line.split()[1])
            other = run_py(threads, box, limits=limits, cgroups=cgroups)
        finally:
            proc.kill()
            proc.wait(timeout=60)
            proc.stdout.close()
        uid = sb.uid
    assert 0 < forked < 64, forked
    assert "started 16 threads" in other.stdout, (
        f"a second submission could not start threads: {other.stderr[-1500:]}")
    if os.geteuid() == 0:
        deadline = time.monotonic() + 30
        while uid_processes(uid) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not uid_processes(uid), "the bomb's processes outlived its sandbox"


@needs_cgroups
def test_a_process_bomb_is_capped_per_submission_with_cgroups(box):
    _bomb_and_threads(box, cgroups=True)


@needs_root
def test_a_process_bomb_is_capped_per_submission_by_its_own_uid_without_cgroups(box):
    _bomb_and_threads(box, cgroups=False)


def test_scratch_disk_is_capped_and_nothing_lands_on_the_host(box):
    limits = sandbox.Limits(scratch_bytes=32 << 20, file_bytes=256 << 20)
    got = run_py("""
        import errno, os
        written = 0
        for i in range(12):                       # twelve 8 MiB files: 96 MiB
            try:
                with open(f"part{i}.bin", "wb") as f:
                    f.write(b"x" * (8 << 20))
                written += 8
            except OSError as exc:
                print("refused", errno.errorcode[exc.errno])
                break
        print("written", written)
        try:
            with open("big.bin", "wb") as f:
                f.write(b"x" * (48 << 20))
            print("wrote big")
        except OSError as exc:
            print("big refused", errno.errorcode[exc.errno])
    """, box, limits=limits)
    assert "refused ENOSPC" in got.stdout and "big refused ENOSPC" in got.stdout, (
        got.stdout + got.stderr[-1000:])
    assert int(got.stdout.split("written")[1].split()[0]) <= 32
    assert sorted(p.name for p in box.iterdir()) == ["probe.py"], "files landed on the host"


@needs_cgroups
def test_cpu_is_capped_for_the_submission_as_a_whole(box):
    """Two busy processes under a cap of a tenth of a core get about that together (the
    cgroup's setting is read back too; a loaded machine gave them 0.3 cores uncapped)."""
    limits = sandbox.Limits(cpu_cores=0.1)
    code = """
        import os, time
        r, w = os.pipe()
        for _ in range(2):
            if os.fork() == 0:
                end = time.monotonic() + 4
                while time.monotonic() < end:
                    pass
                os.write(w, b"%f\\n" % time.process_time())
                os._exit(0)
        os.wait(); os.wait(); os.close(w)
        print("cpu", sum(float(x) for x in os.read(r, 100).split()))
    """
    (box / "probe.py").write_text(textwrap.dedent(code))
    os.chmod(box / "probe.py", 0o644)
    with sandbox.Sandbox(limits) as sb:
        got = sb.run([sys.executable, str(box / "probe.py")], box, capture_output=True,
                     text=True, timeout=300)
        assert sb.cgroup is not None and sb.cgroup.set["cpu"] == "10000 100000"
        folder = [f for f in sb.cgroup.folders if (f / "cpu.cfs_quota_us").exists()
                  or (f / "cpu.max").exists()][0]
        setting = ((folder / "cpu.cfs_quota_us").read_text() if sb.cgroup.version == 1
                   else (folder / "cpu.max").read_text().split()[0])
    assert int(setting) == 10000
    cpu = float(got.stdout.split("cpu")[1])
    assert cpu / 4 < 0.2, f"two busy processes used {cpu / 4:.2f} cores under a 0.1 cap"


@needs_root
def test_uid_slots_are_never_shared(tmp_path):
    first = sandbox.UidSlot(tmp_path, base=61001, slots=3)
    second = sandbox.UidSlot(tmp_path, base=61001, slots=3)
    assert first.uid != second.uid
    # a slot held by another process is skipped
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import fcntl, os, sys, time
        fd = os.open({str(tmp_path / "slot-2.lock")!r}, os.O_RDWR | os.O_CREAT)
        fcntl.flock(fd, fcntl.LOCK_EX); print("held", flush=True); time.sleep(600)
    """)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(RuntimeError, match="are in use"):
            sandbox.UidSlot(tmp_path, base=61001, slots=3)
        first.release()
        third = sandbox.UidSlot(tmp_path, base=61001, slots=3)
        assert third.uid == 61001
    finally:
        holder.kill()
        holder.wait()
        holder.stdout.close()
    third.release()
    second.release()
    # a uid an account has is never given to a sandbox
    with pytest.raises(RuntimeError, match="are in use"):
        sandbox.UidSlot(tmp_path / "other", base=sandbox.NOBODY, slots=1)


def test_limits_note_says_what_this_machine_allows():
    lines = sandbox.limits_note()
    assert 1 <= len(lines) <= 2 and lines[0].startswith("sandbox limits: ")
    assert "scratch tmpfs 512 MiB" in lines[0]
    version, parents, _ = sandbox.cgroup_support()
    if version:
        assert f"cgroup v{version}" in lines[0]
    if os.geteuid() == 0:
        assert f"uid {sandbox.UID_BASE}-" in lines[0]
    if not {"memory", "pids", "cpu"} <= set(parents) or os.geteuid() != 0:
        assert lines[1].startswith("sandbox limits not set: ")
    if seccomp.supported() is None:
        assert "seccomp filter refusing" in lines[0]


def test_a_machine_whose_system_call_numbers_the_filter_does_not_know_says_so(monkeypatch,
                                                                             tmp_path):
    """The filter's numbers are x86-64's: elsewhere no filter is made (rather than a wrong
    one), bubblewrap gets none, the fork server's request carries none, and the note on
    the limits says why."""
    import platform

    monkeypatch.setattr(platform, "machine", lambda: "aarch64")
    assert seccomp.program() is None and "aarch64" in seccomp.supported()
    assert "--seccomp" not in sandbox.command(["true"], tmp_path)
    with sandbox.Sandbox(cgroups=False) as sb:
        argv, _ = sb._forked(SimpleNamespace(path="unused"), {"path": "p.py", "args": []},
                             tmp_path, (), None)
        assert json.loads(Path(argv[-1]).read_text())["seccomp"] == ""
    assert "no seccomp filter (the seccomp filter knows x86-64's system call numbers only; " \
           "this is aarch64)" in sandbox.limits_note()[-1]


# ---------------------------------------------------------------- a kernel in the sandbox

def execute(sources: list[str], timeout: int = 10):
    from nbclient import NotebookClient

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(s) for s in sources]
    boxes, cgroups, uids = [], [], []

    class Recording(sandbox.SandboxKernelManager):
        def __init__(self, **kw):
            super().__init__(**kw)
            boxes.append(self._box)

        async def _async_launch_kernel(self, kernel_cmd, **kw):
            await super()._async_launch_kernel(kernel_cmd, **kw)
            uids.append(self.sandbox.uid)
            if self.sandbox.cgroup is not None:
                cgroups.extend(self.sandbox.cgroup.folders)

    client = NotebookClient(nb, kernel_name="python3", timeout=timeout, allow_errors=True,
                            interrupt_on_timeout=True, kernel_manager_class=Recording)
    error = None
    try:
        client.execute()
    except Exception as exc:  # noqa: BLE001 (returned to the test)
        error = exc
    outputs = [[o.get("text") or o.get("ename") for o in c.outputs] for c in nb.cells]
    assert boxes and not any(b.exists() for b in boxes), "the kernel's scratch folder was left"
    if {"memory", "pids", "cpu"} <= set(sandbox.cgroup_support()[1]):
        assert len(cgroups) == 3, "the kernel ran without its cgroup"
    assert not [c for c in cgroups if c.exists()], "the kernel's cgroup was left"
    if os.geteuid() == 0:
        assert uids and not uid_processes(uids[0]), "processes outlived the kernel"
    return outputs, error


def test_kernel_runs_cells_interrupts_a_loop_and_cleans_up(usable, launch, tmp_path):
    outputs, error = execute(["import os; print(os.getcwd().endswith('/work'))",
                              "while True: pass", "print('after')"], timeout=5)
    assert error is None
    assert outputs == [["True\n"], ["KeyboardInterrupt"], ["after\n"]]


def test_outputs_are_capped_while_they_stream(usable):
    """A cell printing 20 MB leaves at most the cap in the grading process, with a note;
    the next cell's output is whole. (And once the grader's kernel is ready, its sockets
    folder on the host takes no file from the student.)"""
    from grading.trusted.preprocessors import RobustExecute

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(
                    "for i in range(2000):\n    print('x' * 9999, flush=True)"),
                nbformat.v4.new_code_cell("print('after')"),
                nbformat.v4.new_code_cell(
                    "import os\nfrom ipykernel import get_connection_file\n"
                    "try:\n"
                    "    open(os.path.join(os.path.dirname(get_connection_file()), 'j'), 'w')\n"
                    "    print('wrote beside the sockets')\n"
                    "except OSError as exc:\n"
                    "    print('refused', type(exc).__name__)")]
    ex = RobustExecute(timeout=300, kernel_name="python3", max_cell_output_chars=1_000_000,
                       kernel_manager_class=sandbox.SandboxKernelManager)
    kept = []
    real_output = RobustExecute.output

    def spy(self, outs, msg, display_id, cell_index):  # what is held while the cell runs
        out = real_output(self, outs, msg, display_id, cell_index)
        if cell_index == 0:
            kept.append(sum(len(o.get("text", "")) for o in outs))
        return out

    RobustExecute.output = spy
    try:
        ex.preprocess(nb, {"metadata": {"path": "."}})
    finally:
        RobustExecute.output = real_output
    first = nb.cells[0].outputs
    text = "".join(o.get("text", "") for o in first)
    assert max(kept) <= 1_000_000 + 500, f"the grader held {max(kept):,} characters"
    assert len(text) <= 1_000_000 + 500 and "output cut while the cell ran" in text
    assert [o.get("text") for o in nb.cells[1].outputs] == ["after\n"]
    if os.geteuid() == 0:
        said = "".join(o.get("text", "") for o in nb.cells[2].outputs)  # in one piece or more
        assert said == "refused PermissionError\n", said


def test_kernel_death_is_seen_and_takes_everything_along(usable, launch):
    from nbclient.exceptions import DeadKernelError

    outputs, error = execute([
        # a process whose own command line holds the mark (a shell's `sleep` would not)
        f"import subprocess, sys; subprocess.Popen([sys.executable, '-c', "
        f"'import time; time.sleep(300)', '{MARK}'], start_new_session=True)",
        "import os\nif os.getuid() != 0 and os.getpid() < 50:  # only ever inside the sandbox\n"
        "    os.kill(-1, 9)  # every process it may signal, the grader's if it could see them\n"
        "    os.kill(os.getpid(), 9)", "print('never')"])
    assert isinstance(error, DeadKernelError), f"expected the kernel to die, got {error!r}"
    left = _still_running(MARK)
    assert not left, f"processes outlived the kernel: {left}"


def test_kernel_works_in_a_files_from_copy_without_notebooks(usable, tmp_path):
    src = tmp_path / "release"
    src.mkdir()
    (src / "data.csv").write_text("1,2\n")
    (src / "a.ipynb").write_text("{}")
    (src / "link").symlink_to("/etc/passwd")
    km = sandbox.SandboxKernelManager(kernel_name="python3", files_from=str(src))
    km._fill_workdir()
    try:
        assert sorted(p.name for p in km._work.iterdir()) == ["data.csv"]
    finally:
        import shutil
        shutil.rmtree(km._box, ignore_errors=True)


# ---------------------------------------------------------------- kernels forked from the server

@pytest.fixture
def forked(usable, monkeypatch):
    if os.geteuid() != 0:
        pytest.skip("the fork server needs root")
    monkeypatch.setenv(sandbox.FORKSERVER_ENV, "1")


def test_a_fork_server_that_cannot_make_a_sandbox_gives_way_to_bubblewrap(forked, monkeypatch,
                                                                          capsys):
    """Where a forked sandbox cannot be made (here: a read-only bind of a folder that is not
    there), the grading process learns it once, says why, and starts its kernels by
    bubblewrap; it does not hand every kernel to a server whose sandboxes die at birth
    ('Kernel died before replying to kernel_info' for every student, the reason unseen)."""
    roots = sandbox._python_roots()
    monkeypatch.setattr(sandbox, "_python_roots", lambda: roots + [Path("/nonexistent-venv")])
    monkeypatch.setattr(sandbox.ForkServer, "_current", None)
    monkeypatch.setattr(sandbox.ForkServer, "_failed", "")
    assert sandbox.ForkServer.get() is None
    why = sandbox.ForkServer._failed
    assert "could not make a sandbox" in why and "nonexistent-venv" in why, why
    err = capsys.readouterr().err
    assert "kernels start by bubblewrap" in err and "nonexistent-venv" in err, err
    monkeypatch.setattr(sandbox, "_python_roots", lambda: roots)
    monkeypatch.setattr(sandbox.ForkServer, "_failed", "")
    server = sandbox.ForkServer.get()  # a machine where it can: the probe passes
    assert server is not None
    try:
        assert server.probe() is None
    finally:
        server.close()

def test_nothing_carries_from_one_forked_kernel_to_the_next(forked):
    """Two submissions graded one after the other by the same process: the second kernel is
    a fresh fork of the server, not the first one's state (modules, files, environment,
    random generators), and the server itself never ran a kernel (its torch is as
    imported)."""
    first, _ = execute([
        "import os, random, numpy, torch\n"
        "print(open('/proc/1/cmdline').read().split('\\0')[2].endswith('forkserver.py'))",
        "torch.LEFT_BY_A = numpy.LEFT_BY_A = 'student A'\n"
        "torch.manual_seed(0); numpy.random.seed(0); random.seed(0)\n"
        "open('/tmp/left-by-a', 'w').write('A'); os.environ['LEFT_BY_A'] = '1'\n"
        "print(torch.rand(1).item(), numpy.random.rand(), random.random())"])
    second, _ = execute([
        "import os, random, numpy, torch\n"
        "print(hasattr(torch, 'LEFT_BY_A'), hasattr(numpy, 'LEFT_BY_A'),"
        " os.path.exists('/tmp/left-by-a'), 'LEFT_BY_A' in os.environ)",
        "print(torch.rand(1).item(), numpy.random.rand(), random.random())"])
    assert first[0] == ["True\n"], f"the kernel was not forked from the server: {first}"
    assert second[0] == ["False False False False\n"], second
    assert second[1] != first[1], "the second kernel drew the first one's random numbers"
    third, _ = execute(["import numpy, torch; print(torch.rand(1).item(), numpy.random.rand())"])
    assert third[0][0].split() != second[1][0].split()[:2], "two kernels share their seeds"


def test_a_killed_grader_leaves_no_forked_sandbox_behind(forked, tmp_path):
    """SIGKILL to the grading process mid-cell: its fork server, the server's children and
    every process in their sandboxes go with it."""
    code = textwrap.dedent(f"""
        import nbformat, sys
        from nbclient import NotebookClient
        from grading.trusted import sandbox, seccomp
        nb = nbformat.v4.new_notebook()
        nb.cells = [nbformat.v4.new_code_cell(
            "import subprocess, sys\\n"
            "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(300)', '{MARK}-k'])\\n"
            "print('started', flush=True)\\nimport time; time.sleep(300)")]
        NotebookClient(nb, kernel_name="python3", timeout=600,
                       kernel_manager_class=sandbox.SandboxKernelManager).execute()
        """)
    script = tmp_path / "grader.py"  # not -c: its command line must not hold the mark
    script.write_text(code)
    grader = subprocess.Popen([sys.executable, str(script)], cwd=str(REPO),
                              env={**os.environ, "PYTHONPATH": str(REPO)})
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not subprocess.run(
            ["pgrep", "-f", f"{MARK}-k"], capture_output=True).stdout:
        time.sleep(0.2)
    assert subprocess.run(["pgrep", "-f", f"{MARK}-k"], capture_output=True).stdout, \
        "the sandboxed kernel never started its process"
    servers = [p for p in subprocess.run(["pgrep", "-f", "forkserver.py"], capture_output=True,
                                         text=True).stdout.split()
               if str(grader.pid) in _ancestry(int(p)).split()]
    assert len(servers) >= 3, "expected the server, its child and the kernel's client"
    grader.kill()
    grader.wait()
    left = _still_running(f"{MARK}-k", servers)
    assert not left, f"left behind: {left}"


def _still_running(mark: str, pids=(), wait: float = 10) -> list[str]:
    """Processes whose command line holds ``mark``, and those of ``pids``, still running (not
    zombies) after waiting up to ``wait`` seconds for them to end."""
    deadline = time.monotonic() + wait
    while True:
        found = subprocess.run(["pgrep", "-f", mark], capture_output=True, text=True).stdout.split()
        left = [p for p in dict.fromkeys([*found, *pids]) if _running(int(p))]
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.2)


def _running(pid: int) -> bool:
    """A process that exists and is not a zombie waiting to be reaped."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except OSError:
        return False


def _ancestry(pid: int) -> str:
    out = []
    while pid > 1:
        try:
            with open(f"/proc/{pid}/stat") as f:
                pid = int(f.read().rsplit(")", 1)[1].split()[1])
        except OSError:
            break
        out.append(str(pid))
    return " ".join(out)


# ------------------------------------------------- labkit.workers forked by the sandbox's PID 1

WORKER_PROBE = """
import json, os, sys, torch
from labkit import workers

def probe(rank, world_size):
    status = dict(line.split(':', 1) for line in open('/proc/self/status').read().splitlines())
    return {'ppid': os.getppid(), 'uid': os.getuid(), 'left': hasattr(torch, 'LEFT_BY_KERNEL'),
            'env': [os.environ.get('FROM_KERNEL'), os.environ.get('EXTRA')],
            'name': open('/proc/self/comm').read().strip(),
            'caps': [status[k].strip() for k in ('CapEff', 'CapBnd', 'NoNewPrivs')],
            'cwd': os.getcwd(), 'argv': sys.argv[1:3]}
"""


def test_workers_are_forked_by_pid_1_with_the_kernels_walls_and_nothing_of_its_state(forked):
    """In a forked sandbox labkit.workers asks the sandbox's PID 1 (torch imported, no
    student code run) to fork each worker: the worker has the kernel's environment and
    folder, as a fresh one would, none of the kernel's Python state, the sandbox's uid
    with no capability, and the name the traffic meter looks for."""
    outputs, error = execute([
        "import torch, os; torch.LEFT_BY_KERNEL = 1; os.environ['FROM_KERNEL'] = 'yes'",
        WORKER_PROBE + "print(json.dumps([os.getuid(), os.getcwd(), "
        "workers.run(probe, 3, worker_env={'EXTRA': 'x'})]))"], timeout=120)
    assert error is None and len(outputs[1]) == 1, outputs
    uid, cwd, got = json.loads(outputs[1][0])
    for rank, w in enumerate(got):
        assert w["ppid"] == 1, f"rank {rank} was not forked by the sandbox's PID 1: {w}"
        assert w["uid"] == uid and w["uid"] != 0, w
        assert w["caps"] == ["0000000000000000", "0000000000000000", "1"], w
        assert w["left"] is False, "a worker saw the kernel's Python state"
        assert w["env"] == ["yes", "x"], w
        assert w["name"] == f"labkit-rank{rank}" and w["cwd"] == cwd, w
        assert w["argv"] == [str(rank), "3"], w


def test_forked_workers_fail_and_end_as_fresh_ones_do(forked):
    """A raise, a SIGKILL and a deadlock in forked workers read as they do from fresh ones,
    and after each nothing of the workers is left in the sandbox."""
    left = ("print(sorted(open(f'/proc/{p}/comm').read().strip() for p in os.listdir('/proc')"
            " if p.isdigit() and int(p) > 1 and int(p) != os.getpid()))")
    outputs, error = execute([
        WORKER_PROBE,
        "import signal, time\n"
        "def fail(rank, ws):\n"
        "    if rank == 1: raise ValueError('rank one says no')\n"
        "    time.sleep(30)\n"
        "try: workers.run(fail, 2)\n"
        "except workers.WorkerError as e: print(e.rank, 'rank one says no' in str(e))",
        left,
        "def die(rank, ws):\n"
        "    if rank == 0: os.kill(os.getpid(), signal.SIGKILL)\n"
        "    time.sleep(30)\n"
        "try: workers.run(die, 2)\n"
        "except workers.WorkerError as e: print(e.rank, 'killed by SIGKILL' in str(e))",
        left,
        "def stuck(rank, ws):\n"
        "    import torch.distributed as dist\n"
        "    if rank == 0: dist.recv(torch.zeros(1), 1)\n"
        "    time.sleep(30)\n"
        "try: workers.run(stuck, 2, timeout=2)\n"
        "except TimeoutError: print('timed out')",
        left], timeout=120)
    assert error is None, error
    assert outputs[1] == ["1 True\n"] and outputs[3] == ["0 True\n"], outputs
    assert outputs[5] == ["timed out\n"], outputs
    for i in (2, 4, 6):
        assert outputs[i] == ["[]\n"], f"left in the sandbox after cell {i}: {outputs[i]}"


def test_pid_1_stays_responsive_caps_forks_and_kills_a_dropped_clients_worker(forked):
    """Connections that never send a request hold up nothing but themselves; past the cap
    PID 1 refuses to fork (with a message); closing them ends what was forked for them;
    a worker whose client is killed is killed too."""
    outputs, error = execute([
        WORKER_PROBE + "import socket, time, signal, subprocess, threading",
        "idle = []\n"
        "for _ in range(70):\n"
        "    s = socket.socket(socket.AF_UNIX); s.connect('\\0' + os.environ['LABKIT_WORKER_SERVER'])\n"
        "    idle.append(s)\n"
        "time.sleep(1)\n"
        "try: workers.run(probe, 1)\n"
        "except workers.WorkerError as e: print(e.detail)",
        "for s in idle: s.close()\n"
        "time.sleep(1)\n"
        "print(len(workers.run(probe, 2)))",
        "def sleeper(rank, ws): time.sleep(60)\n"
        "box = {}\n"
        "def go():\n"
        "    try: workers.run(sleeper, 2)\n"
        "    except Exception as e: box['error'] = type(e).__name__\n"
        "t = threading.Thread(target=go); t.start()\n"
        "def named(prefix):\n"
        "    return [p for p in os.listdir('/proc') if p.isdigit()\n"
        "            and open(f'/proc/{p}/comm').read().startswith(prefix)]\n"
        "deadline = time.time() + 60\n"
        "while len(named('labkit-rank')) < 2 and time.time() < deadline: time.sleep(0.1)\n"
        "clients = [p for p in os.listdir('/proc') if p.isdigit()\n"
        "           and b'_fork_client' in open(f'/proc/{p}/cmdline', 'rb').read()]\n"
        "for p in clients: os.kill(int(p), signal.SIGKILL)\n"
        "t.join(30)\n"
        "time.sleep(1)\n"
        "print(len(clients), box, named('labkit-rank'))"], timeout=120)
    assert error is None, error
    assert len(outputs[1]) == 1 and outputs[1][0].startswith(
        "the sandbox did not start this worker: 64 workers are running (at most 64)"), \
        f"past the cap PID 1 should refuse, and say why: {outputs[1]}"
    assert outputs[2] == ["2\n"], f"after the idle connections closed: {outputs[2]}"
    assert outputs[3] == ["2 {'error': 'WorkerError'} []\n"], outputs[3]


def test_forked_workers_take_the_malloc_settings_of_their_environment(forked):
    """glibc reads MALLOC_MMAP_THRESHOLD_ when a process starts, before a forked worker's
    environment exists; labkit.workers applies it. With it a 12 MB block allocated after a
    24 MB one was freed is still its own mapping (the traffic meter's memory readings rely
    on it); without it glibc raises its threshold past 12 MB when the 24 MB block is freed.
    The block's own chunk header says (glibc's IS_MMAPPED bit), whatever other threads
    allocate meanwhile; blocks this big find no free chunk to reuse in the heap the worker
    inherits (a 300 kB one may)."""
    outputs, error = execute([
        "from labkit import workers\n"
        "def mapped(rank, ws):\n"
        "    import ctypes\n"
        "    libc = ctypes.CDLL('libc.so.6')\n"
        "    libc.malloc.restype = ctypes.c_void_p; libc.free.argtypes = [ctypes.c_void_p]\n"
        "    libc.free(libc.malloc(24 << 20))\n"
        "    block = libc.malloc(12 << 20)\n"
        "    size_field = ctypes.c_size_t.from_address(block - ctypes.sizeof(ctypes.c_size_t))\n"
        "    mapped = (size_field.value >> 1) & 1\n"
        "    libc.free(block)\n"
        "    return mapped\n"
        "print(workers.run(mapped, 1, worker_env={'MALLOC_MMAP_THRESHOLD_': '131072'}),"
        " workers.run(mapped, 1))"], timeout=120)
    assert error is None, error
    assert outputs[0] == ["[1] [0]\n"], outputs


def test_labkit_is_imported_from_a_course_closed_to_other_users(box, tmp_path, monkeypatch):
    """A course folder closed to all but its group, as make hub leaves it (2770 at the top,
    folders 2770, files 0660): the sandbox's uid is not in that group, yet its kernel imports
    the course's labkit (bound from there, every kernel failed: PermissionError on
    labkit/__init__.py, and make autograde on a hub gave every student 0)."""
    course = tmp_path / "closed-course"
    shutil.copytree(REPO / "labkit", course / "labkit",
                    ignore=shutil.ignore_patterns("__pycache__"))
    (course / "labkit" / "course_marker.py").write_text("WHERE = 'the closed course'\n")
    for path in [course, *course.rglob("*")]:
        os.chmod(path, 0o2770 if path.is_dir() else 0o660)
    monkeypatch.setattr(sandbox, "LABKIT", course / "labkit")
    got = run_py("import labkit, labkit.course_marker as m; print(m.WHERE, labkit.__file__)",
                 box)
    assert got.returncode == 0, got.stderr[-2000:]
    assert got.stdout.startswith("the closed course /.course-lib/labkit/"), got.stdout


# ---------------------------------------------------------------- the grader's sockets

HUB_USER = 65534   # nobody: any other account on the machine

STRANGER = '''
import json, os, socket, sys
tried = {}
for name, path in json.loads(sys.argv[1]).items():
    try:
        if name.startswith("list"):
            os.listdir(path)
        elif name.startswith("read"):
            open(path).close()
        else:
            s = socket.socket(socket.AF_UNIX)
            s.settimeout(5)
            s.connect(path)
            s.close()
        tried[name] = "done"
    except OSError as exc:
        tried[name] = type(exc).__name__
print(json.dumps(tried))
'''


@pytest.mark.skipif(os.geteuid() != 0, reason="another uid needs root")
def test_no_other_user_reaches_the_graders_sockets_and_the_sandbox_still_does(usable, launch):
    """A hub user (another uid) can neither list nor enter the folders of a student's
    grading, nor connect to the judge's sockets or the kernel's own, nor read its connection
    file; the sandboxed kernel still reaches the judge through its bind mount of the sockets
    folder (the learner's code calls a test's object, the judge calls the learner's code)."""
    from jupyter_client import BlockingKernelClient
    from jupyter_core.utils import run_sync

    from labkit.judge import handles
    from labkit.judge import session as sessions

    km = sandbox.SandboxKernelManager(kernel_name="python3")
    run_sync(km.start_kernel)()
    kc = None
    try:
        info = {k: (v.decode() if isinstance(v, bytes) else v)
                for k, v in km.get_connection_info(session=False).items()}
        kc = BlockingKernelClient()
        kc.load_connection_info(info)
        kc.start_channels()
        kc.wait_for_ready(timeout=120)
        km.seal()
        kc.execute_interactive("def f(clock):\n    clock.tick(1)\n    return 7", timeout=60)
        cell = {"__name__": "__main__"}
        exec("class Clock:\n    ticks = 0\n    def tick(self, n):\n        self.ticks += n\n"
             "clock = Clock()", cell)
        names = sessions.connect(info, ["f"], km.provisioner.pgid, km.kernel_pid(), 60.0,
                               uid=km.sandbox.uid)
        assert names["f"](cell["clock"]) == 7 and cell["clock"].ticks == 1
        session = handles._session
        box = km._box
        kernel_sockets = sorted(str(p) for p in km._sockets.iterdir() if p.is_socket()
                                and p.name.startswith("kernel"))
        targets = {"list /tmp/sandbox-*": str(box), "list its sockets": str(km._sockets),
                   "read the connection file": km.connection_file,
                   "connect to the judge's objects socket": session.path,
                   "connect to the judge's calls socket": session._calls_path,
                   "connect to the kernel's shell socket": kernel_sockets[0]}
        python = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
        got = subprocess.run([python, "-I", "-c", STRANGER, json.dumps(targets)], user=HUB_USER,
                             group=HUB_USER, extra_groups=[], capture_output=True, text=True,
                             timeout=60)
        tried = json.loads(got.stdout)
        assert tried == {name: "PermissionError" for name in targets}, tried
        assert names["f"](cell["clock"]) == 7 and cell["clock"].ticks == 2
    finally:
        if handles._session is not None:
            handles._session.close()
            handles._session = None
        if kc is not None:
            kc.stop_channels()
        run_sync(km.shutdown_kernel)(now=True)
