"""The course hub end to end (make hub: JupyterHub, nbgrader's exchange, the course's grading).

A real JupyterHub with its real proxy (configurable-http-proxy) is started by the fixture on
a scratch copy of the course, exactly as ``make hub`` starts it (grading/hub/run.py), and
stopped after; the test checks that no process of it is left behind.

1. The instructor releases 00_getting_started to the exchange (grading/hub/exchange.py
   release: nbgrader release_assignment).
2. A student logs in in headless Chromium, fetches it from the Assignment List, answers one
   exercise in the notebook, saves and submits.
3. The instructor collects (grading/hub/exchange.py collect: nbgrader collect) and grades
   the collected folder with the course's own trusted grading (grading/autograde.py, as
   make autograde does), then releases the feedback (exchange.py feedback: nbgrader
   release_feedback).
4. The student fetches the feedback from the Assignment List and finds their score in it.

The same collected submission, packed as an LMS zip (flat file names carrying the student
id), is graded by the LMS path into a fresh course with the same score.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
import zipfile
from pathlib import Path

import nbformat
import pytest

from grading.course import REPO, SOLUTIONS
from tests.browser.lab import (
    SCREENSHOTS,
    chromium_missing_message,
    scratch_course,
)

A = "00_getting_started"
NB = f"{A}.ipynb"
STUDENT = "ada"
INSTRUCTOR = "instructor"
PASSWORD = "hub-test-password"
START_S = 180
pytestmark = [pytest.mark.slow, pytest.mark.browser, pytest.mark.xdist_group("hub")]


# ---------------------------------------------------------------- the exercise answered

def answered_exercise() -> tuple[str, str, float, float]:
    """(solution cell grade_id, its answer without the solution markers, points of the test
    cells that follow it, points of the whole notebook) for the notebook's last exercise."""
    nb = nbformat.read(SOLUTIONS / A / NB, as_version=4)
    meta = [c.metadata.get("nbgrader", {}) for c in nb.cells]
    last = max(i for i, m in enumerate(meta) if m.get("solution") and nb.cells[i].cell_type
               == "code")
    answer = "\n".join(ln for ln in nb.cells[last].source.splitlines()
                       if "### BEGIN SOLUTION" not in ln and "### END SOLUTION" not in ln)
    after = sum(float(m.get("points", 0)) for m in meta[last + 1:] if m.get("grade"))
    total = sum(float(m.get("points", 0)) for m in meta if m.get("grade"))
    return meta[last]["grade_id"], answer, after, total


# ---------------------------------------------------------------- the hub

def _free_base_port() -> int:
    """A port P with P, P+1 and P+2 free (the hub, its API, the proxy's API)."""
    import socket

    for _ in range(50):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if port > 65000:
            continue
        try:
            for p in (port + 1, port + 2):
                with socket.socket() as s:
                    s.bind(("127.0.0.1", p))
            return port
        except OSError:
            continue
    raise RuntimeError("no three consecutive free ports on 127.0.0.1")


def _processes_of(marker: str) -> list[int]:
    """Processes whose command line or environment mentions ``marker`` (the hub's folder)."""
    found, me, key = [], os.getpid(), marker.encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == me:
            continue
        try:
            if key in (entry / "cmdline").read_bytes() or key in (entry / "environ").read_bytes():
                found.append(int(entry.name))
        except OSError:
            continue
    return found


class Hub:
    def __init__(self, base: Path):
        self.base = base
        self.course = scratch_course(base / "course")
        self.state = base / "state"
        self.port = 0
        self.log = base / "hub.log"
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.port = _free_base_port()
        env = dict(os.environ, HUB_SINGLEUSER_ARGS="--LabApp.expose_app_in_browser=True")
        env.pop("JUPYTERHUB_API_TOKEN", None)
        self.proc = subprocess.Popen(
            [sys.executable, str(REPO / "grading" / "hub" / "run.py"), "--port", str(self.port),
             "--state", str(self.state), "--course", str(self.course),
             "--students", f"{STUDENT},ben", "--instructor", INSTRUCTOR, "--password", PASSWORD],
            cwd=REPO, env=env, stdout=open(self.log, "wb"), stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL, start_new_session=True)
        deadline = time.monotonic() + START_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"the hub exited ({self.proc.returncode}):\n{self.tail()}")
            try:
                with urllib.request.urlopen(f"{self.url}/hub/api/", timeout=5) as r:
                    if r.status == 200:
                        return
            except OSError:
                time.sleep(0.5)
        raise AssertionError(f"the hub did not answer on {self.url} in {START_S}s:\n{self.tail()}")

    def tail(self, n: int = 4000) -> str:
        try:
            return self.log.read_text(errors="replace")[-n:]
        except OSError:
            return "(no log)"

    def stop(self) -> list[int]:
        """Stop the hub as Ctrl+C does; returns the processes it left behind (then killed)."""
        if self.proc is None:
            return []
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                pass
        leftover = [p for p in _processes_of(str(self.base)) if p != self.proc.pid]
        for pid in leftover + [self.proc.pid]:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.proc.wait(timeout=10)
        self.proc = None
        return leftover



@pytest.fixture(scope="module")
def hub():
    missing = chromium_missing_message()
    if missing:
        pytest.fail(missing, pytrace=False)
    base = Path(tempfile.mkdtemp(prefix="course-hub-"))
    base.chmod(0o755)
    h = Hub(base)
    try:
        h.start()
        yield h
    finally:
        left = h.stop()
        shutil.rmtree(base, ignore_errors=True)
        assert not left, f"the hub left processes behind after Ctrl+C: {left}"


@pytest.fixture(scope="module")
def browser(hub, chromium):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return chromium


def new_page(browser):
    """A page of its own (its own cookies: one person logged in)."""
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    context.set_default_timeout(60_000)
    return context.new_page()


def exchange_py(step: str, course: Path) -> str:
    """A step of grading/hub/exchange.py as the instructor runs it (README's commands)."""
    p = subprocess.run([sys.executable, str(REPO / "grading" / "hub" / "exchange.py"), step, A,
                        "--course", str(course)], cwd=REPO, capture_output=True, text=True,
                       timeout=300)
    assert p.returncode == 0, f"exchange.py {step} {A} failed:\n{p.stdout}\n{p.stderr}"
    return p.stdout


# ---------------------------------------------------------------- the student's side

def log_in(page, hub: Hub, user: str, wait: bool = True) -> None:
    """Log in on the hub's login page; the hub starts the user's JupyterLab. ``wait``:
    until it is loaded (otherwise the caller calls lab_loaded later)."""
    page.goto(f"{hub.url}/hub/login", wait_until="domcontentloaded")
    page.fill("#username_input", user)
    page.fill("#password_input", PASSWORD)
    page.click("#login_submit", no_wait_after=True)
    if wait:
        lab_loaded(page, user)


def lab_loaded(page, user: str) -> None:
    page.wait_for_url(re.compile(rf".*/user/{user}/lab.*"), timeout=START_S * 1000)
    page.wait_for_function("() => window.jupyterapp !== undefined", timeout=START_S * 1000)
    page.evaluate("() => window.jupyterapp.restored")
    page.wait_for_selector("#jp-main-dock-panel", timeout=60_000)


def open_assignment_list(page):
    page.locator("#jp-MainMenu .lm-MenuBar-itemLabel", has_text=re.compile(r"^\s*Nbgrader\s*$")
                 ).first.click()
    page.locator(".lm-Menu-content .lm-Menu-item").filter(
        has=page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^\s*Assignment List\s*$"))
    ).first.click()
    panel = page.locator("#nbgrader-assignment-list")
    panel.wait_for(state="visible", timeout=60_000)
    return panel


def answer_in_notebook(page, path: str, grade_id: str, answer: str) -> None:
    """Open the fetched notebook, type the answer into the exercise's cell, save."""
    page.evaluate("""async (path) => {
        const app = window.jupyterapp;
        const panel = await app.commands.execute('docmanager:open', {path, factory: 'Notebook'});
        await panel.context.ready;
        app.shell.activateById(panel.id);
        panel.node.setAttribute('data-hub-notebook', path);
    }""", path)
    index = page.evaluate("""([path, gid]) => {
        const panel = window.jupyterapp.shell.currentWidget;
        return panel.content.widgets.findIndex(
            (c) => (c.model.getMetadata('nbgrader') || {}).grade_id === gid);
    }""", [path, grade_id])
    assert index >= 0, f"{path}: no cell {grade_id} in the fetched notebook"
    cell = page.locator(f'[data-hub-notebook="{path}"] .jp-Cell').nth(index)
    cell.scroll_into_view_if_needed()
    editor = cell.locator(".cm-content")
    editor.click()
    page.keyboard.press("Control+a")
    page.keyboard.insert_text(answer)
    page.keyboard.press("Escape")
    page.keyboard.press("Control+s")
    page.wait_for_function("() => !window.jupyterapp.shell.currentWidget.context.model.dirty",
                           timeout=30_000)


def click_in_row(panel, list_id: str, button: str, timeout_s: float = 60) -> None:
    row = panel.locator(f"#{list_id} .list_item").filter(has_text=A)
    row.first.wait_for(timeout=timeout_s * 1000)
    row.first.get_by_role("button", name=button, exact=True).click()


# ---------------------------------------------------------------- the tests

@pytest.fixture(scope="module")
def flow(hub, browser):
    """The whole hub flow once; what it produced, for the checks below."""
    started: list[subprocess.Popen] = []
    try:
        yield run_flow(hub, browser, started)
    finally:
        from grading.cluster import kill_tree

        for proc in started:  # the LMS-zip grading, if a step failed before its check
            if proc.poll() is None:
                kill_tree(proc.pid)
            proc.wait()


def run_flow(hub, browser, started: list) -> dict:
    grade_id, answer, expected, total = answered_exercise()
    home = hub.state / "home" / STUDENT
    timings = {}
    t0 = time.monotonic()

    # 1. the instructor releases the assignment to the exchange
    exchange_py("release", hub.course)
    assert (hub.course / "grading" / "exchange" / "fast-dl" / "outbound" / A / NB).is_file()

    # 2. the student fetches, answers one exercise, submits (the instructor logs in too:
    #    the hub starts both JupyterLabs at once)
    teacher, page = new_page(browser), new_page(browser)
    log_in(teacher, hub, INSTRUCTOR, wait=False)
    log_in(page, hub, STUDENT)
    timings["release, log in, spawn"] = time.monotonic() - t0
    formgrader = page.request.get(f"{hub.url}/user/{STUDENT}/formgrader")
    assert formgrader.status == 404, "a student's server must not serve the formgrader"
    panel = open_assignment_list(page)
    click_in_row(panel, "released_assignments_list", "Fetch")
    (home / A / NB).exists() or panel.locator("#fetched_assignments_list").get_by_text(A).first \
        .wait_for(timeout=60_000)
    assert (home / A / NB).is_file(), f"Fetch did not put {A}/{NB} in {home}"
    answer_in_notebook(page, f"{A}/{NB}", grade_id, answer)
    saved = nbformat.read(home / A / NB, as_version=4)
    cell = next(c for c in saved.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)
    assert "raise NotImplementedError" not in cell.source and answer.split("\n")[-1].strip() \
        in cell.source, f"the typed answer was not saved:\n{cell.source}"
    page.evaluate("() => window.jupyterapp.shell.activateById('nbgrader-assignment-list')")
    page.locator("#refresh_assignments_list").click()
    click_in_row(panel, "fetched_assignments_list", "Submit")
    panel.locator("#submitted_assignments_list .list_item").filter(has_text=A).first.wait_for(
        timeout=60_000)
    page.screenshot(path=str(SCREENSHOTS / "hub__student_submitted.png"))
    timings["fetch, answer, submit"] = time.monotonic() - t0 - sum(timings.values())

    # 3. the instructor collects, grades with the course's grading, releases feedback
    log = exchange_py("collect", hub.course)
    collected = hub.course / "grading" / "hub" / "collected"
    exchange = hub.course / "grading" / "exchange"
    assert (collected / STUDENT / A / NB).is_file(), (
        f"collect found no submission:\n{log}\nexchange holds: "
        f"{sorted(str(p.relative_to(exchange)) for p in exchange.rglob('*'))}")
    timings["collect"] = time.monotonic() - t0 - sum(timings.values())
    lms = grade_lms_zip(collected / STUDENT / A / NB, hub.base / "lms")  # meanwhile
    started.append(lms[0])
    grade = subprocess.run(
        [sys.executable, str(REPO / "grading" / "autograde.py"), A, str(collected),
         "--course", str(hub.course), "--jobs", "1", "--cell-timeout", "60"],
        cwd=REPO, capture_output=True, text=True, timeout=600)
    assert grade.returncode == 0, grade.stdout[-3000:] + grade.stderr[-3000:]
    feedback = hub.course / "grading" / "feedback" / STUDENT / A
    assert (feedback / f"{A}.html").is_file(), grade.stdout[-3000:]
    timings["make autograde"] = time.monotonic() - t0 - sum(timings.values())
    exchange_py("feedback", hub.course)
    timings["release feedback"] = time.monotonic() - t0 - sum(timings.values())

    # the instructor's JupyterLab serves the course's formgrader, which reads the gradebook
    lab_loaded(teacher, INSTRUCTOR)
    listed = teacher.request.get(f"{hub.url}/user/{INSTRUCTOR}/formgrader/api/assignments")
    assert listed.status == 200, f"the instructor's formgrader: HTTP {listed.status}"
    row = next((r for r in listed.json() if r["name"] == A), None)
    assert row and row["num_submissions"] == 1, f"formgrader lists {listed.json()}"
    teacher.context.close()
    timings["instructor's formgrader"] = time.monotonic() - t0 - sum(timings.values())

    # 4. the student fetches the feedback
    page.locator("#refresh_assignments_list").click()
    click_in_row(panel, "submitted_assignments_list", "Fetch Feedback")
    panel.get_by_text("(view feedback)").first.wait_for(timeout=60_000)
    page.screenshot(path=str(SCREENSHOTS / "hub__student_feedback.png"))
    timings["fetch feedback"] = time.monotonic() - t0 - sum(timings.values())
    fetched = sorted((home / A / "feedback").glob(f"*/{A}.html"))
    result = {"expected": expected, "total": total, "grade_log": grade.stdout,
            "feedback": fetched, "lms": lms, "timings": timings}
    return result


def test_student_submits_on_the_hub_and_gets_the_course_grading_back(hub, flow):
    from grading.autograde import course_db_url, read_gradebook

    rows, _ = read_gradebook(course_db_url(hub.course), A)
    scores = {r["student"]: (r["score"], r["max_score"]) for r in rows}
    assert scores == {STUDENT: (flow["expected"], flow["total"])}, flow["grade_log"][-3000:]
    assert flow["feedback"], "Fetch Feedback put no feedback in the student's folder"
    html = flow["feedback"][-1].read_text()
    assert re.search(rf"Score:\s*{flow['expected']:g}(\.0)?\s*/\s*{flow['total']:g}", html), \
        "the fetched feedback does not show the score " + re.sub(r"\s+", " ", html)[:500]
    canvas = (hub.course / "grading" / "reports" / A / "canvas.csv").read_text().splitlines()
    assert canvas[0].startswith("Student,ID,SIS User ID,Section,") and \
        canvas[-1].endswith(f",{STUDENT},,{flow['expected']:g}"), canvas  # make autograde's LMS file
    print("hub flow timings (s): " + ", ".join(f"{k} {v:.1f}" for k, v in
                                                flow["timings"].items()))


def grade_lms_zip(notebook: Path, base: Path) -> tuple[subprocess.Popen, Path]:
    """Start grading ``notebook`` as an LMS would export it (one flat zip whose file names
    carry the student id), through make autograde's zip path, into a fresh course."""
    base.mkdir()
    archive = base / "lms.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.write(notebook, f"{STUDENT}_12345_67890_{NB}")
    course = base / "course"
    shutil.copytree(SOLUTIONS / A, course / "solutions" / A)
    (course / "grading").mkdir()
    proc = subprocess.Popen(
        [sys.executable, str(REPO / "grading" / "autograde.py"), A, str(archive),
         "--course", str(course), "--jobs", "1", "--cell-timeout", "60", "--quiet"],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return proc, course


def test_the_same_hand_in_as_an_lms_zip_grades_the_same(flow):
    """What the student submitted on the hub, collected and zipped as an LMS exports it,
    graded by make autograde's zip path (into a fresh course): the same score, feedback."""
    from grading.autograde import course_db_url, read_gradebook

    proc, course = flow["lms"]
    log = proc.communicate(timeout=600)[0]
    assert proc.returncode == 0, log[-3000:]
    rows, _ = read_gradebook(course_db_url(course), A)
    assert {r["student"]: r["score"] for r in rows} == {STUDENT: flow["expected"]}, log[-3000:]
    assert (course / "grading" / "feedback" / STUDENT / A / f"{A}.html").is_file()
