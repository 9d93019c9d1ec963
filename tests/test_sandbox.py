"""grading/sandbox.py: what a student's code can see, reach and leave behind while graded.

Each attack runs twice where that is safe: outside the sandbox (it works: the test
could fail) and inside (it does not). The kernel tests drive a real ipykernel in the
sandbox through nbclient, as nbgrader does.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import nbformat
import pytest

from grading import sandbox
from grading.course import REPO

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="the sandbox is Linux-only")
MARK = "sandbox-test-orphan-7f3a"


@pytest.fixture(scope="module")
def usable():
    why = sandbox.unavailable()
    assert why is None, f"no sandbox on this machine: {why} (make system installs bubblewrap)"


@pytest.fixture
def box(tmp_path, usable):
    work = tmp_path / "work"
    work.mkdir()
    sandbox._give_to_sandbox(work)
    return work


def run_py(code: str, work: Path | None, env: dict | None = None, timeout: float = 120):
    """Run ``code`` with the venv's Python, in the sandbox (work given) or outside it."""
    import tempfile

    script = (work or Path(tempfile.mkdtemp(prefix="probe-"))) / "probe.py"
    script.write_text(textwrap.dedent(code))
    argv = [sys.executable, str(script)]
    if work is None:
        return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=env)
    if os.geteuid() == 0:
        os.chown(script, sandbox.NOBODY, sandbox.NOBODY)
    return subprocess.run(sandbox.command(argv, work, env=env), capture_output=True, text=True,
                          timeout=timeout)


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
    assert (box / "mine.txt").read_text() == "ok"


def test_runs_as_nobody_without_capabilities_when_graded_as_root(box):
    got = run_py("""
        import os
        print(os.getuid(), os.getgid())
        print(open("/proc/self/status").read().split("CapEff:")[1].split()[0])
    """, box)
    uid, gid, caps = got.stdout.split()
    if os.geteuid() == 0:
        assert (uid, gid) == ("65534", "65534")
    assert int(caps, 16) == 0, f"effective capabilities inside: {caps}"


def test_double_forked_processes_end_with_the_sandbox(box):
    got = run_py(f"""
        import os, subprocess, sys
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                os.execv("/bin/sh", ["sh", "-c", "sleep 300 # {MARK}"])
            os._exit(0)
        os.wait()
        print("left a grandchild behind")
    """, box)
    assert "left a grandchild" in got.stdout, got.stderr
    time.sleep(1)
    left = subprocess.run(["pgrep", "-f", MARK], capture_output=True, text=True).stdout.split()
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
    if os.geteuid() == 0:
        os.chown(script, sandbox.NOBODY, sandbox.NOBODY)
    argv = sandbox.command([sys.executable, str(script)], box, limits=limits)
    got = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    forked = int(got.stdout.split("forked")[1].split()[0])
    assert 0 < forked < 64, got.stdout + got.stderr
    assert "file capped" in got.stdout and "memory capped" in got.stdout, got.stdout


def test_gloo_process_group_runs_inside(box):
    """torch.distributed between the sandbox's own processes (03's ring needs it)."""
    got = run_py("""
        import torch, torch.distributed as dist
        from labkit import workers

        def hello(rank, world_size):
            t = torch.tensor([float(rank + 1)])
            dist.all_reduce(t)
            return t.item()

        print(workers.run(hello, 2, timeout=60))
    """, box, timeout=180)
    assert got.returncode == 0, got.stderr[-2000:]
    assert "3.0" in got.stdout


# ---------------------------------------------------------------- a kernel in the sandbox

def execute(sources: list[str], timeout: int = 10):
    from nbclient import NotebookClient

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(s) for s in sources]
    boxes = []

    class Recording(sandbox.SandboxKernelManager):
        def __init__(self, **kw):
            super().__init__(**kw)
            boxes.append(self._box)

    client = NotebookClient(nb, kernel_name="python3", timeout=timeout, allow_errors=True,
                            interrupt_on_timeout=True, kernel_manager_class=Recording)
    error = None
    try:
        client.execute()
    except Exception as exc:  # noqa: BLE001 (returned to the test)
        error = exc
    outputs = [[o.get("text") or o.get("ename") for o in c.outputs] for c in nb.cells]
    assert boxes and not any(b.exists() for b in boxes), "the kernel's scratch folder was left"
    return outputs, error


def test_kernel_runs_cells_interrupts_a_loop_and_cleans_up(usable, tmp_path):
    outputs, error = execute(["import os; print(os.getcwd().endswith('/work'))",
                              "while True: pass", "print('after')"], timeout=5)
    assert error is None
    assert outputs == [["True\n"], ["KeyboardInterrupt"], ["after\n"]]


def test_kernel_death_is_seen_and_takes_everything_along(usable):
    from nbclient.exceptions import DeadKernelError

    outputs, error = execute([
        f"import subprocess; subprocess.Popen(['sh', '-c', '(sleep 300 # {MARK}) &'])",
        "import os\nif os.getuid() != 0 and os.getpid() < 50:  # only ever inside the sandbox\n"
        "    os.kill(-1, 9)  # every process it may signal, the grader's if it could see them\n"
        "    os.kill(os.getpid(), 9)", "print('never')"])
    assert isinstance(error, DeadKernelError), f"expected the kernel to die, got {error!r}"
    time.sleep(1)
    left = subprocess.run(["pgrep", "-f", MARK], capture_output=True, text=True).stdout.split()
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
