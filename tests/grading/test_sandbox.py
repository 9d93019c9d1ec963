"""grading/trusted/sandbox.py: what a student's code can see, reach and leave behind while graded.

Each attack runs twice where that is safe: outside the sandbox (it works: the test
could fail) and inside (it does not). The kernel tests drive a real ipykernel in the
sandbox through nbclient, as nbgrader does.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from grading.trusted import limits as sandbox_limits
from grading.trusted import sandbox
from grading.course import REPO
from tests.grading.sandboxing import MARK, _still_running, run_py

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="the sandbox is Linux-only")


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
        assert uid == gid and sandbox_limits.UID_BASE <= int(uid) < sandbox_limits.UID_BASE + sandbox_limits.SLOTS
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
    limits = sandbox_limits.Limits(processes=64, file_bytes=1 << 20, memory_bytes=2 << 30)
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
        kc = BlockingKernelClient(parent=km)    # alive = km's process, not a 1 s heartbeat
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
