"""A kernel in the sandbox, started by bubblewrap or forked from the fork server
(grading/trusted/forkserver.py): cells, interrupts, death, nothing carried from one kernel to
the next, and labkit.workers forked by the sandbox's PID 1.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import nbformat
import pytest

from grading.trusted import limits as sandbox_limits
from grading.trusted import sandbox
from grading.course import REPO
from tests.grading.sandboxing import MARK, _ancestry, _still_running, uid_processes

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="the sandbox is Linux-only")


# ---------------------------------------------------------------- a kernel in the sandbox

def execute(sources: list[str], timeout: int = 10):
    from nbclient import NotebookClient
    from grading.trusted.preprocessors import IOPUB_TIMEOUT

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

    client = NotebookClient(nb, iopub_timeout=IOPUB_TIMEOUT, kernel_name="python3", timeout=timeout, allow_errors=True,
                            interrupt_on_timeout=True, kernel_manager_class=Recording)
    error = None
    try:
        client.execute()
    except Exception as exc:  # noqa: BLE001 (returned to the test)
        error = exc
    outputs = [[o.get("text") or o.get("ename") for o in c.outputs] for c in nb.cells]
    assert boxes and not any(b.exists() for b in boxes), "the kernel's scratch folder was left"
    if {"memory", "pids", "cpu"} <= set(sandbox_limits.cgroup_support()[1]):
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
    mark = f"{MARK}-k{os.getpid()}"   # this run's own: another run of the suite may be under way
    code = textwrap.dedent(f"""
        import nbformat, sys
        from nbclient import NotebookClient
        from grading.trusted.preprocessors import IOPUB_TIMEOUT
        from grading.trusted import sandbox, seccomp
        nb = nbformat.v4.new_notebook()
        nb.cells = [nbformat.v4.new_code_cell(
            "import subprocess, sys\\n"
            "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(300)', '{mark}'])\\n"
            "print('started', flush=True)\\nimport time; time.sleep(300)")]
        NotebookClient(nb, iopub_timeout=IOPUB_TIMEOUT, kernel_name="python3", timeout=600,
                       kernel_manager_class=sandbox.SandboxKernelManager).execute()
        """)
    script = tmp_path / "grader.py"  # not -c: its command line must not hold the mark
    script.write_text(code)
    grader = subprocess.Popen([sys.executable, str(script)], cwd=str(REPO),
                              env={**os.environ, "PYTHONPATH": str(REPO)})
    deadline = time.monotonic() + 300   # a kernel's start on a loaded machine: minutes, at worst
    while time.monotonic() < deadline and grader.poll() is None and not subprocess.run(
            ["pgrep", "-f", mark], capture_output=True).stdout:
        time.sleep(0.2)
    assert subprocess.run(["pgrep", "-f", mark], capture_output=True).stdout, \
        f"the sandboxed kernel never started its process (grader's exit status: {grader.poll()})"
    servers = [p for p in subprocess.run(["pgrep", "-f", "forkserver.py"], capture_output=True,
                                         text=True).stdout.split()
               if str(grader.pid) in _ancestry(int(p)).split()]
    assert len(servers) >= 3, "expected the server, its child and the kernel's client"
    grader.kill()
    grader.wait()
    left = _still_running(mark, servers, wait=60)
    assert not left, f"left behind: {left}"


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


def test_a_worker_ending_as_its_client_hangs_up_never_takes_pid_1_down(forked):
    """A worker that ends while its client hangs up reaches PID 1 as two events in one batch
    (the worker's exit, the connection's hang-up): PID 1 handles both, in either order, and
    forks the next worker. Here forty clients at a time hang up before they ask."""
    outputs, error = execute([
        WORKER_PROBE + "import socket, time",
        "for _ in range(12):\n"
        "    idle = []\n"
        "    for _ in range(40):\n"
        "        s = socket.socket(socket.AF_UNIX)\n"
        "        s.connect('\\0' + os.environ['LABKIT_WORKER_SERVER']); idle.append(s)\n"
        "    time.sleep(0.3)\n"
        "    for s in idle: s.close()\n"
        "time.sleep(1)\n"
        "print(len(workers.run(probe, 2)))"], timeout=120)
    assert error is None, f"the sandbox's PID 1 went down: {error}"
    assert outputs[1] == ["2\n"], outputs


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


