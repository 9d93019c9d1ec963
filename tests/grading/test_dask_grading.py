"""Grading on a Dask cluster made of separate OS processes: ``dask scheduler`` and two
``dask worker`` processes, as an instructor would start them on other machines.

A small class of 00_getting_started (solutions, blank and partial notebooks, some slowed
down so that grading takes a while) is graded through them with ``autograde.py
--scheduler``; mid-run the worker process that is grading a submission is killed. Every
student still gets the grade of their work (the lost jobs are graded again on the other
worker), the report says which submissions were graded again, and nothing the killed
worker started (grading process, sandbox, kernel) is left running.
"""

from __future__ import annotations

import copy
import csv
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import psutil
import pytest

from grading.batch import autograde as ag
from grading.batch.cluster import kill_tree
from grading.course import REPO, SOLUTIONS
from tests.harness import CellGraph
from tests.grading.test_autograde import (graded_cells, index_of, learner, solution, solution_cells,
                                  with_cell_suffix)

A = "00_getting_started"
NB = f"{A}.ipynb"
BIN = Path(sys.executable).parent
pytestmark = [pytest.mark.xdist_group("grading"), pytest.mark.slow]


def _env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env["PATH"] = os.pathsep.join([str(BIN), env.get("PATH", "")])
    return env


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        kill_tree(proc.pid)
    proc.wait(timeout=30)


@pytest.fixture(scope="module")
def dask_cluster(tmp_path_factory):
    """A scheduler and two workers (each with its nanny), separate processes on loopback."""
    base = tmp_path_factory.mktemp("dask")
    sched_file = base / "scheduler.json"
    procs = []
    logs = []

    def start(*args):
        log = open(base / f"{args[0]}-{len(procs)}.log", "wb")
        logs.append(log)
        procs.append(subprocess.Popen([str(BIN / "dask"), *args], cwd=REPO, env=_env(),
                                      stdout=log, stderr=subprocess.STDOUT))
        return procs[-1]

    try:
        start("scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
              "--scheduler-file", str(sched_file))
        # the scheduler makes its file, then writes it: read it once it parses (a loaded
        # machine takes its time; a scheduler that died is reported at once)
        deadline, address = time.monotonic() + 600, None
        while address is None:
            try:
                address = json.loads(sched_file.read_text())["address"]
            except (OSError, ValueError, KeyError):
                if procs[0].poll() is not None or time.monotonic() > deadline:
                    raise AssertionError("the Dask scheduler wrote no address: "
                                         + (base / "scheduler-0.log").read_text()[-3000:]) from None
                time.sleep(0.2)
        workers = [start("worker", address, "--nthreads", "1", "--host", "127.0.0.1",
                         "--no-dashboard", "--name", f"w{i}") for i in range(2)]
        from distributed import Client

        with Client(address, timeout=120) as client:
            client.wait_for_workers(2, timeout=600)
        yield {"address": address, "workers": workers, "base": base}
    finally:
        for p in reversed(procs):
            _stop(p)
        for log in logs:
            log.close()


def build_class(folder: Path) -> dict[str, float | None]:
    """Solutions (some slowed by a few seconds), blank and partial notebooks."""
    sol, blank = solution(), learner()
    total = sum(graded_cells().values())
    f1 = solution_cells()[0]
    partial = copy.deepcopy(blank)
    partial.cells[index_of(partial, f1)] = copy.deepcopy(sol.cells[index_of(sol, f1)])
    slow = with_cell_suffix(sol, solution_cells()[-1], "import time\ntime.sleep(6)")
    cases = {"s1": (slow, total), "s2": (slow, total), "s3": (sol, total), "s4": (slow, total),
             "b1": (blank, 0.0), "b2": (blank, 0.0), "p1": (partial, None)}
    for student, (nb, _) in cases.items():
        d = folder / student / A
        d.mkdir(parents=True)
        # handed in without the demo cells, which no grade reads (tests/harness.py)
        nbformat.write(CellGraph(nb).trim(nb), str(d / NB))
    return {s: exp for s, (_, exp) in cases.items()}


def _grading_worker_with_a_kernel(workers: list[subprocess.Popen]):
    """(the Dask worker process, its grading child) while a kernel runs under it, or None."""
    for nanny in workers:
        try:
            tree = psutil.Process(nanny.pid).children(recursive=True)
        except psutil.NoSuchProcess:
            continue
        for child in tree:
            try:
                cmd = " ".join(child.cmdline())
                if "grading.batch.cluster" in cmd and "serve" in cmd and any(
                        "ipykernel" in " ".join(k.cmdline()) for k in child.children(recursive=True)):
                    return child.parent(), child
            except psutil.NoSuchProcess:
                continue
    return None


def test_a_class_graded_through_dask_workers_survives_losing_one(dask_cluster, tmp_path):
    course = tmp_path / "course"
    (course / "solutions").mkdir(parents=True)
    import shutil

    shutil.copytree(SOLUTIONS / A, course / "solutions" / A)
    subs = tmp_path / "submissions"
    expected = build_class(subs)
    out_log, err_log = open(tmp_path / "out.txt", "w"), open(tmp_path / "err.txt", "w")
    grader = subprocess.Popen(
        [sys.executable, str(REPO / "grading" / "batch" / "autograde.py"), A, str(subs), "--course",
         str(course), "--scheduler", dask_cluster["address"], "--cell-timeout", "60", "--quiet"],
        cwd=REPO, stdout=out_log, stderr=err_log)
    try:
        found, deadline = None, time.monotonic() + 600
        while found is None and grader.poll() is None and time.monotonic() < deadline:
            found = _grading_worker_with_a_kernel(dask_cluster["workers"])
            time.sleep(0.2)
        assert found, "no Dask worker was seen grading a submission"
        victim, child = found
        left_behind = [child] + child.children(recursive=True)
        victim.send_signal(signal.SIGKILL)  # the worker process itself: gone mid-grading
        rc = grader.wait(timeout=900)
    finally:
        if grader.poll() is None:
            kill_tree(grader.pid)
        out_log.close()
        err_log.close()
    out, err = (tmp_path / "out.txt").read_text(), (tmp_path / "err.txt").read_text()
    assert rc == 0, err[-3000:]

    # every student graded, with the grade of their work
    rows, _ = ag.read_gradebook(f"sqlite:///{course / 'grading' / 'gradebook.db'}", A)
    got = {r["student"]: r["score"] for r in rows}
    assert set(got) == set(expected), out
    total = sum(graded_cells().values())
    for student, exp in expected.items():
        if exp is None:
            assert 0 < got[student] < total, (student, got[student])
        else:
            assert got[student] == exp, (student, got[student], out)
    for student in expected:
        assert (course / "grading" / "feedback" / student / A / f"{A}.html").is_file()

    # the report says which submissions were graded again, and why
    assert "lost mid-run" in out, out
    notes = {r["student"]: r["notes"] for r in
             csv.DictReader(open(course / "grading" / "reports" / A / "grades.csv"))}
    again = [s for s, n in notes.items() if "graded again" in n and "lost" in n]
    assert again, notes

    # nothing the killed worker started is still running
    deadline = time.monotonic() + 20
    alive = left_behind
    while alive and time.monotonic() < deadline:
        alive = [p for p in alive if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]
        time.sleep(0.5)
    assert not alive, [p.cmdline() for p in alive]
    # and the surviving workers stopped their grading processes at the end of the run
    deadline = time.monotonic() + 20
    busy = True
    while busy and time.monotonic() < deadline:
        busy = [c for w in dask_cluster["workers"] if w.poll() is None
                for c in psutil.Process(w.pid).children(recursive=True)
                if "grading.batch.cluster" in " ".join(c.cmdline())]
        time.sleep(0.5)
    assert not busy, [c.cmdline() for c in busy]


@pytest.fixture
def small_course(tmp_path):
    import shutil

    course = tmp_path / "course"
    (course / "solutions").mkdir(parents=True)
    shutil.copytree(SOLUTIONS / A, course / "solutions" / A)
    subs = tmp_path / "submissions"
    build_class(subs)
    return course, subs


def test_unreachable_scheduler_is_one_clear_line(small_course, capsys):
    course, subs = small_course
    rc = ag.main([A, str(subs), "--course", str(course), "--scheduler", "tcp://127.0.0.1:9",
                  "--quiet"])
    err = capsys.readouterr().err.strip()
    assert rc == 2
    assert len(err.splitlines()) == 1, err
    assert "SCHEDULER=tcp://127.0.0.1:9" in err and "dask scheduler" in err, err
    assert not (course / "grading" / "reports" / A / "grades.csv").exists()


def test_scheduler_without_scheme_is_a_usage_error(small_course, capsys):
    course, subs = small_course
    assert ag.main([A, str(subs), "--course", str(course), "--scheduler", "myhost:8786"]) == 2
    err = capsys.readouterr().err
    assert "tcp://host:8786" in err, err
