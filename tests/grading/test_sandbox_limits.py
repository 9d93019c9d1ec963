"""grading/trusted/seccomp.py and grading/trusted/limits.py in a real sandbox: the system calls it
refuses, and what one submission may use as a whole (memory, processes, disk, CPU, uids).
"""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from grading.trusted import limits as sandbox_limits
from grading.trusted import sandbox, seccomp
from grading.course import REPO
from tests.grading.sandboxing import needs_cgroups, needs_root, run_py, uid_processes

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="the sandbox is Linux-only")


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
    limits = sandbox_limits.Limits(memory_bytes=2 << 30)
    got = run_py(HOG.format(n=n), box, limits=limits, timeout=600)
    assert got.stdout.strip(), f"the sandbox printed nothing: {got.stderr[-2000:]}"
    out = json.loads(got.stdout.strip().splitlines()[-1])
    assert len(out["held_alive"]) * n <= limits.memory_bytes, (
        f"{len(out['held_alive'])} children held {len(out['held_alive']) * n >> 20} MiB at once "
        f"under a {limits.memory_bytes >> 20} MiB cap")
    assert out["killed"], "no child was refused"


def _bomb_and_threads(box, cgroups: bool):
    limits = sandbox_limits.Limits(processes=64)
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
    limits = sandbox_limits.Limits(scratch_bytes=32 << 20, file_bytes=256 << 20)
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
    limits = sandbox_limits.Limits(cpu_cores=0.1)
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
    first = sandbox_limits.UidSlot(tmp_path, base=61001, slots=3)
    second = sandbox_limits.UidSlot(tmp_path, base=61001, slots=3)
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
            sandbox_limits.UidSlot(tmp_path, base=61001, slots=3)
        first.release()
        third = sandbox_limits.UidSlot(tmp_path, base=61001, slots=3)
        assert third.uid == 61001
    finally:
        holder.kill()
        holder.wait()
        holder.stdout.close()
    third.release()
    second.release()
    # a uid an account has is never given to a sandbox
    with pytest.raises(RuntimeError, match="are in use"):
        sandbox_limits.UidSlot(tmp_path / "other", base=sandbox_limits.NOBODY, slots=1)


def test_limits_note_says_what_this_machine_allows():
    lines = sandbox_limits.limits_note()
    assert 1 <= len(lines) <= 2 and lines[0].startswith("sandbox limits: ")
    assert "scratch tmpfs 512 MiB" in lines[0]
    version, parents, _ = sandbox_limits.cgroup_support()
    if version:
        assert f"cgroup v{version}" in lines[0]
    if os.geteuid() == 0:
        assert f"uid {sandbox_limits.UID_BASE}-" in lines[0]
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
           "this is aarch64)" in sandbox_limits.limits_note()[-1]


