import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
# Tests never pick up a learner's own Jupyter configuration.
os.environ["JUPYTER_CONFIG_PATH"] = str(REPO / "grading")
os.environ.setdefault("MPLBACKEND", "Agg")

import pytest  # noqa: E402

SCREENSHOTS = REPO / "test-artifacts" / "screenshots"


@pytest.fixture(autouse=True)
def _nbgrader_environment_restored():
    """nbgrader's Validator and autograder set NBGRADER_EXECUTION (and NBGRADER_VALIDATING) in
    this process's environment and do not restore them when the run inside raises; a later test
    here (or a subprocess it starts) would then believe it is being graded. Put back as before."""
    names = ("NBGRADER_EXECUTION", "NBGRADER_VALIDATING")
    before = {n: os.environ.get(n) for n in names}
    yield
    for name, value in before.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


@pytest.fixture
def no_mxnet(tmp_path, monkeypatch):
    """PYTHONPATH with an 'mxnet' package whose import raises ImportError, as on a machine
    without MXNet (most GPU machines today), for this process's children; grading-mode
    sizes, so notebooks run lean."""
    shim = tmp_path / "shim"
    (shim / "mxnet").mkdir(parents=True)
    (shim / "mxnet" / "__init__.py").write_text(
        'raise ImportError("mxnet made unimportable for this test")\n')
    path = os.pathsep.join(p for p in (str(shim), os.environ.get("PYTHONPATH", "")) if p)
    monkeypatch.setenv("PYTHONPATH", path)
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    return shim
_SESSION_START = time.time()

# Seconds each xdist group, or each test outside a group ("path::function", every parameter),
# took in a whole-suite run (make test in a fresh clone, 4 workers on 2 cores, 2026-11-29; the
# group's tests summed where they were among the 120 slowest); what is not named counts as 1 s.
# Only the order in which work starts depends on it, never a verdict: under --dist loadgroup the
# longest units start first (on every worker: xdist schedules by the workers' collection), so no
# long one starts last and leaves the other workers idle at the end (in collection order, 06's
# variants started 66 minutes into a 78-minute run and ran alone for its last 12). Every name is
# checked to be in use (tests/test_schedule.py).
COSTS = {
    "browser": 1870, "grading": 1130, "redteam-06_sharded_data_parallel": 850,
    "redteam-06_sharded_data_parallel-part2": 850,
    "06_sharded_data_parallel": 880, "01_async_execution": 830, "hub": 780,
    "redteam-01_async_execution": 670, "redteam-00_getting_started": 590,
    "redteam-07_model_parallel": 520, "05_mixed_precision": 470, "redteam-03_allreduce": 450,
    "tests/grading/test_tools.py::test_every_benchmark_answers_help_and_names_a_bad_argument": 450,
    "02_data_parallel": 450, "04_number_formats": 370, "07_model_parallel": 360,
    "tests/notebooks/test_without_mxnet.py::test_notebooks_that_reach_mxnet_grade_full_and_zero_without_it": 350,
    "00_getting_started": 320, "03_allreduce": 310, "redteam-05_mixed_precision": 310,
    "redteam-02_data_parallel": 230, "redteam-04_number_formats": 190,
    "tests/judge/test_judge_death.py::test_a_test_cell_the_judge_stopped_in_scores_nothing_nor_do_later_ones": 210,
    "tests/grading/test_tools.py::test_validate_reports_each_test_cell": 170,
    "tests/notebooks/test_01_async_execution.py::test_engine_half_built_fails_fast_with_not_implemented": 140,
    "tests/judge/test_judge_reuse.py::test_the_judge_listens_on_no_tcp_port": 120,
    "tests/notebooks/test_03_given_code.py::test_tree_allreduce_equals_all_reduce": 117,
    "tests/notebooks/test_02_data_parallel.py::test_runs_without_mxnet": 114,
    "tests/judge/test_judge_reuse.py::test_one_judge_served_every_student": 113,
    "tests/test_mutants.py::test_grading_catches_wrong_mutants_and_reports_a_correct_one": 108,
    "tests/grading/test_workcopy.py::test_reset_a_whole_notebook": 106,
    "tests/grading/test_workcopy.py::test_reset_names_the_problem": 105,
    "tests/grading/test_workcopy.py::test_the_demo_class_blank_student_is_generated_from_solutions": 104,
    "tests/grading/test_colab.py::test_colab_cell_installs_labkit_from_the_repository_only_on_colab": 94,
    "tests/judge/test_judge_reuse.py::test_the_judge_runs_under_limits_of_its_own": 92,
    "tests/test_mutants.py::test_catch_rate_reads_another_folder_and_counts_both_ways": 91,
    "tests/grading/test_workcopy.py::test_reset_one_exercise_keeps_the_rest": 85,
    "tests/notebooks/test_06_sharded_data_parallel.py::test_torchrun_cell_prints_one_line_per_rank_and_one_line_for_a_failure": 83,
}


def _loadgroup(config) -> bool:
    """Whether this run is ``--dist loadgroup``: on an xdist worker (whose own option says
    "no"), the controller's command line says, and the workers' collection order is the one
    xdist schedules by."""
    if hasattr(config, "workerinput"):
        argv = config.workerinput.get("mainargv", [])
        return any(a == "--dist=loadgroup" or (a == "loadgroup" and prev == "--dist")
                   for prev, a in zip([""] + argv, argv))
    return getattr(config.option, "dist", "no") == "loadgroup"


_BACKSTOP = 300  # seconds past pytest-timeout's limit


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item):
    """Backstop for pytest-timeout's signal method, whose alarm cannot interrupt a thread held
    in C code (a collective waiting for a peer): past the limit and _BACKSTOP more, every
    thread's stack and this process's children go to stderr and the test process ends (xdist
    reports the test as failed and starts another worker)."""
    import faulthandler
    import subprocess
    import threading

    limit = item.config.getini("timeout")
    marker = item.get_closest_marker("timeout")
    limit = float(marker.args[0] if marker and marker.args else limit or 0)

    def give_up():
        # An xdist worker's own stderr is not shown; its parent's (the controller's) is CI's log.
        try:
            out = os.open(f"/proc/{os.getppid()}/fd/2", os.O_WRONLY | os.O_APPEND)
        except OSError:
            out = 2
        os.write(out, f"\n{item.nodeid}: still running {limit + _BACKSTOP:.0f} s after it "
                          f"started; every thread's stack, then this process's children:\n".encode())
        faulthandler.dump_traceback(file=out, all_threads=True)
        subprocess.run(["ps", "-o", "pid,ppid,etime,stat,args", "--ppid", str(os.getpid())],
                       stdout=out, stderr=out, check=False)
        os._exit(1)

    def tree():
        """Just before pytest-timeout's alarm: this process's descendants, into the test's
        captured output (what the test waited on is often a child: nbgrader, a kernel)."""
        import psutil
        print(f"\n{item.nodeid}: {limit:.0f} s limit near; the test process's descendants:")
        for p in psutil.Process().children(recursive=True):
            try:
                print(f"  {p.pid} (parent {p.ppid()}) {p.status()} "
                      f"{time.time() - p.create_time():.0f} s  {' '.join(p.cmdline())[:300]}")
            except psutil.Error:
                pass

    timers = [threading.Timer(limit + _BACKSTOP, give_up),
              threading.Timer(limit - min(30, limit / 10), tree)] if limit > 0 else []
    for timer in timers:
        timer.daemon = True
        timer.start()
    try:
        yield
    finally:
        for timer in timers:
            timer.cancel()


def pytest_configure(config):
    if _loadgroup(config):
        config.option.loadscopereorder = False  # xdist's order (most tests first): ours instead


def _unit(item) -> tuple[str, str]:
    """(the xdist work unit an item belongs to, its name in COSTS)."""
    marker = item.get_closest_marker("xdist_group")
    if marker:
        name = marker.args[0] if marker.args else marker.kwargs.get("name", "default")
        return name, name
    return item.nodeid, item.nodeid.split("[")[0]


def pytest_collection_modifyitems(config, items):
    """Under --dist loadgroup, the units in the order of their cost in COSTS, longest first
    (xdist hands a worker the next unit in collection order when it is almost idle); within
    a unit, and among units of the same cost, the collection's own order."""
    if not _loadgroup(config):
        return
    first: dict[str, int] = {}
    for i, item in enumerate(items):
        first.setdefault(_unit(item)[0], i)

    def key(item):
        unit, name = _unit(item)
        return -COSTS.get(name, 1), first[unit]

    items.sort(key=key)


@pytest.fixture(scope="session")
def chromium():
    """One Playwright and one headless Chromium per test process, shared by every test that
    drives a browser (Playwright's sync API runs one instance per thread), closed at the end."""
    from tests.browser.server import chromium_missing_message, headless_chromium

    missing = chromium_missing_message()
    if missing:
        pytest.fail(missing, pytrace=False)
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        pytest.fail("the Python package 'playwright' is missing: make test installs it "
                    "(pip install -e '.[test]')", pytrace=False)
    with headless_chromium() as browser:
        yield browser


_RERUNS: list = []


def pytest_runtest_logreport(report):
    """Keep what a test that timed out and was rerun showed (pytest-rerunfailures drops it)."""
    if report.outcome == "rerun":
        _RERUNS.append(report)


def pytest_terminal_summary(terminalreporter):
    """Show why each rerun test was rerun (its stack when it timed out), then say where the
    browser tests' screenshots are, whichever xdist worker wrote them."""
    for report in _RERUNS:
        terminalreporter.section(f"timed out, then rerun: {report.nodeid}")
        text = str(report.longrepr)
        for name, content in report.sections:
            text += f"\n--- {name} ---\n{content}"
        terminalreporter.write_line(text[-12000:])
    _screenshots(terminalreporter)


def _screenshots(terminalreporter):
    if not SCREENSHOTS.is_dir():
        return
    shots = sorted(p for p in SCREENSHOTS.glob("*.png") if p.stat().st_mtime >= _SESSION_START)
    if not shots:
        return
    terminalreporter.section("browser screenshots")
    terminalreporter.write_line(f"{len(shots)} screenshots (each notebook after Run All, each "
                                f"widget after a control moved, Validate, nbgrader panels) in "
                                f"{SCREENSHOTS}/:")
    for shot in shots:
        terminalreporter.write_line(f"  {shot.name}")
