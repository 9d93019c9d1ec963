"""labkit.workers: processes with a process group, tracebacks shown, nothing left behind."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import nbformat
import pytest
import torch

from labkit import workers
from tests import workers_fns as fns


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split()[2] != "Z"
    except FileNotFoundError:
        return False


def _ppid(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except (FileNotFoundError, IndexError, ValueError):
        return 0


def _descends_from_us(pid: int) -> bool:
    me = os.getpid()
    while pid > 1:
        pid = _ppid(pid)
        if pid == me:
            return True
    return False


def _worker_pids() -> set[int]:
    """Processes started by labkit.workers from this test process (or its kernels), still running."""
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmd = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            pid = int(entry.name)
            if b"labkit.workers as w; w._worker_main()" in cmd and _alive(pid) and _descends_from_us(pid):
                found.add(pid)
    return found


@pytest.fixture
def no_leftovers():
    before = _worker_pids()
    yield
    left = _worker_pids() - before
    assert not left, f"worker processes left behind: {sorted(left)}"


def test_four_process_all_reduce(no_leftovers, capsys):
    results = workers.run(fns.all_reduce_rank, 4, 5)
    for t in results:
        assert torch.equal(t, torch.full((5,), 10.0))
    out = capsys.readouterr().out
    assert all(f"[rank {r}] rank {r} done" in out for r in range(4))


def test_single_process_group_works(no_leftovers):
    assert torch.equal(workers.run(fns.all_reduce_rank, 1, 3)[0], torch.ones(3))


def test_failing_worker_shows_its_traceback_and_ends_all(no_leftovers):
    with pytest.raises(workers.WorkerError) as info:
        workers.run(fns.fail_on_rank, 3, 1, timeout=60)
    err = info.value
    assert err.rank == 1 and err.world_size == 3
    assert "ValueError: boom on rank 1" in str(err) and "fail_on_rank" in str(err)


def test_worker_that_exits_hard_is_reported(no_leftovers):
    with pytest.raises(workers.WorkerError, match="exited with code 7"):
        workers.run(fns.exit_on_rank, 2, 0, timeout=60)


def test_timeout_stops_every_worker(no_leftovers, tmp_path):
    with pytest.raises(TimeoutError, match="did not finish within 20 s"):
        workers.run(fns.sleep_forever, 2, str(tmp_path / "pid"), timeout=20)
    for rank in range(2):
        pid = int((tmp_path / f"pid.{rank}").read_text())
        assert not _alive(pid), f"rank {rank} (pid {pid}) still runs"


@pytest.fixture
def slow_start(tmp_path, monkeypatch):
    """Workers whose start-up takes 6 s more (a sitecustomize that sleeps, found on the
    PYTHONPATH labkit.workers gives them), as on a loaded machine importing torch."""
    folder = tmp_path / "slow"
    folder.mkdir()
    (folder / "sitecustomize.py").write_text("import time\ntime.sleep(6)\n")
    monkeypatch.syspath_prepend(str(folder))
    return 6


def test_timeout_counts_from_when_every_worker_is_up(no_leftovers, slow_start):
    """A slow start-up does not eat the work's time: 3 s of work budget is plenty for a
    pid, however long the interpreters took to start."""
    assert len(set(workers.run(fns.report_pid, 2, timeout=3))) == 2


def test_a_start_up_that_never_ends_is_stopped_and_named(no_leftovers, slow_start):
    with pytest.raises(TimeoutError, match="of the 2 workers started within 2 s"):
        workers.run(fns.report_pid, 2, timeout=60, startup_timeout=2)


def test_interrupt_stops_every_worker(no_leftovers, tmp_path, request):
    """Ctrl-C in the notebook (KeyboardInterrupt in the parent) ends the workers too."""
    import _thread
    import signal

    # Ctrl-C as a notebook's kernel has it, whatever a test run before this one left
    # (interrupt_main does nothing where SIGINT is ignored)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    request.addfinalizer(lambda: signal.signal(signal.SIGINT, previous))

    def interrupt_when_started():
        for _ in range(600):  # up to 60 s for both workers to start on a loaded machine
            if all((tmp_path / f"pid.{r}").exists() for r in range(2)):
                break
            threading.Event().wait(0.1)
        _thread.interrupt_main()

    threading.Thread(target=interrupt_when_started, daemon=True).start()
    with pytest.raises(KeyboardInterrupt):
        workers.run(fns.sleep_forever, 2, str(tmp_path / "pid"), timeout=60)
    for rank in range(2):
        assert not _alive(int((tmp_path / f"pid.{rank}").read_text()))


def test_the_rendezvous_store_listens_on_loopback_only(no_leftovers):
    """The parent's store is for its own workers: reachable from this machine only (left to
    bind itself, TCPStore listens on every address the machine has)."""
    before = fns.listening_sockets(os.getpid())
    during = workers.run(fns.parent_listening_sockets, 1, timeout=60)[0]
    opened = during - before
    assert opened, f"no listening socket of the parent found: {during}"
    loopback = {"0100007F", "0000000000000000FFFF00000100007F"}   # 127.0.0.1, IPv4 or mapped
    assert {address for address, _ in opened} <= loopback, opened


def test_a_worker_ends_quietly_while_gloo_runs_python(no_leftovers, tmp_path, monkeypatch, capfd):
    """A worker whose gloo thread still runs Python when its function returns (DDP's hooks,
    a future's callback) ends with exit code 0 and nothing on stderr, and what it left open
    is written. Ended by Python's own finalization, such a worker leaves a file a module
    holds unwritten, and now and then the thread is killed inside C++ and the process aborts
    ("terminate called without an active exception", "Fatal Python error"). The parent here
    lets the workers end on their own before it stops them."""
    codes = []
    stop = workers._stop

    def stop_after_they_end(procs):
        for p in procs:
            try:
                codes.append(p.wait(60))
            except Exception:  # noqa: BLE001 (a worker that hangs fails on its code below)
                codes.append(None)
        stop(procs)

    monkeypatch.setattr(workers, "_stop", stop_after_they_end)
    assert workers.run(fns.python_in_gloo_thread_after_return, 2, str(tmp_path / "left"),
                       timeout=60) == [0, 1]
    err = capfd.readouterr().err
    assert codes == [0, 0], (codes, err)
    assert "terminate called" not in err and "Fatal Python error" not in err, err
    for rank in range(2):
        assert (tmp_path / f"left.{rank}").read_text() == "written before the worker ended"


_CONNECT_FAILS = """
import os
if os.environ.get("LABKIT_TEST_CONNECT_FAILS"):
    import torch.distributed as dist
    real = dist.init_process_group

    def init_process_group(*args, **kwargs):
        mode, marker = os.environ["LABKIT_TEST_CONNECT_FAILS"].split(":", 1)
        try:
            if mode == "always":
                raise FileExistsError
            os.close(os.open(marker, os.O_CREAT | os.O_EXCL))
        except FileExistsError:
            if mode == "once":
                return real(*args, **kwargs)
        raise RuntimeError("Gloo connectFullMesh failed with [pair.cc:553] Connection closed by peer")

    dist.init_process_group = init_process_group
"""


@pytest.mark.parametrize("mode", ["once", "always"])
def test_a_group_that_cannot_connect_is_started_once_more(no_leftovers, tmp_path, monkeypatch,
                                                          capsys, mode):
    """gloo's full-mesh connect now and then loses a connection on a loaded machine (seen
    once in CI: "Connection closed by peer"). No rank has run fn then, so the workers are
    started once more, saying so; a second failure is the learner's to read."""
    (tmp_path / "sitecustomize.py").write_text(_CONNECT_FAILS)
    monkeypatch.syspath_prepend(str(tmp_path))
    env = {"LABKIT_TEST_CONNECT_FAILS": f"{mode}:{tmp_path / 'failed'}"}
    if mode == "once":
        results = workers.run(fns.all_reduce_rank, 2, 3, timeout=60, worker_env=env)
        assert all(torch.equal(t, torch.full((3,), 3.0)) for t in results)
    else:
        with pytest.raises(workers.WorkerError, match="Connection closed by peer"):
            workers.run(fns.all_reduce_rank, 2, 3, timeout=60, worker_env=env)
    out, err = capsys.readouterr()
    assert err.count("could not connect") == 1 and "starting them again" in err, err
    assert out.count("done") == (2 if mode == "once" else 0), out  # fn ran once per rank


def test_each_rank_is_its_own_process(no_leftovers):
    pids = workers.run(fns.report_pid, 3)
    assert len(set(pids)) == 3 and os.getpid() not in pids


@pytest.mark.parametrize("kwargs,match", [
    (dict(fn=fns.report_pid, world_size=0), "world_size must be a positive int"),
    (dict(fn=fns.report_pid, world_size=True), "world_size must be a positive int"),
    (dict(fn=fns.report_pid, world_size=2, timeout=0), "timeout must be a positive number"),
    (dict(fn=fns.report_pid, world_size=2, startup_timeout=-1),
     "startup_timeout must be a positive number"),
    (dict(fn=fns.report_pid, world_size=2, backend="mpi"), "backend must be 'gloo' or 'nccl'"),
])
def test_bad_arguments_are_named(kwargs, match):
    with pytest.raises(ValueError, match=match):
        workers.run(**kwargs)


def test_non_callable_and_unpicklable_are_explained():
    with pytest.raises(TypeError, match="fn must be a function"):
        workers.run(42, 2)
    lock = threading.Lock()

    def uses_lock(rank, world_size):
        with lock:
            return rank

    with pytest.raises(TypeError, match="must be picklable"):
        workers.run(uses_lock, 2)


NOTEBOOK_CELLS = [
    "import torch, torch.distributed as dist, labkit",
    # A function defined in a notebook cell: spawn could not pickle it, labkit.workers can.
    "def scale_then_sum(rank, world_size, factor):\n"
    "    t = torch.tensor([float(rank)]) * factor\n"
    "    dist.all_reduce(t)\n"
    "    return t.item()",
    "sums = labkit.workers.run(scale_then_sum, 4, 2.0)\nprint('sums', sums)",
    "def broken(rank, world_size):\n"
    "    if rank == 2:\n"
    "        return 1 / 0\n"
    "    import time; time.sleep(60)",
    "labkit.workers.run(broken, 4, timeout=60)",
    "print('kernel still alive')",
]


def test_workers_from_a_notebook_run_by_nbclient(no_leftovers, tmp_path):
    from nbclient import NotebookClient
    from grading.trusted.preprocessors import IOPUB_TIMEOUT
    from grading.trusted.kernels import IpcKernelManager

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(src) for src in NOTEBOOK_CELLS]
    NotebookClient(nb, iopub_timeout=IOPUB_TIMEOUT, timeout=120, kernel_name="python3", kernel_manager_class=IpcKernelManager, allow_errors=True,
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    texts = ["".join(o.get("text", "") for o in c.outputs) for c in nb.cells]
    assert "sums [12.0, 12.0, 12.0, 12.0]" in texts[2], nb.cells[2].outputs
    errors = [o for o in nb.cells[4].outputs if o.output_type == "error"]
    assert errors and errors[0].ename == "WorkerError", nb.cells[4].outputs
    assert "ZeroDivisionError" in errors[0].evalue and "rank 2 of 4" in errors[0].evalue
    assert "kernel still alive" in texts[5]
