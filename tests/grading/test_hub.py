"""The course hub end to end (make hub: JupyterHub, nbgrader's exchange, the course's grading).

A real JupyterHub with its real proxy (configurable-http-proxy) is started by the fixture on
a scratch copy of the course, exactly as ``make hub`` starts it (grading/hub/run.py: real
Unix accounts hubt-ada, hubt-ben and hubt-prof, each user's server a process of its own
account), and stopped after; the test checks that no process of it is left behind and
removes the accounts and their home folders. One file of about 680 lines, for that reason:
the hub and its accounts are made once for every step here (module-scoped fixtures).

1. The instructor releases 00_getting_started to the exchange (grading/hub/exchange.py
   release: nbgrader release_assignment).
2. A student logs in in headless Chromium, fetches it from the Assignment List, answers one
   exercise in the notebook, saves and submits.
3. The instructor collects (grading/hub/exchange.py collect: nbgrader collect) and grades
   the collected folder with the course's own trusted grading (grading/batch/autograde.py, as
   make autograde does), then releases the feedback (exchange.py feedback: nbgrader
   release_feedback).
4. The student fetches the feedback from the Assignment List and finds their score in it.

The same collected submission, packed as an LMS zip (flat file names carrying the student
id), is graded by the LMS path into a fresh course with the same score.

The instructor's Formgrader panel, inside their JupyterLab on the hub, shows the submission.
From ada's JupyterLab, a notebook cell and a terminal try to read ben's files, token and
server, the course's solutions and gradebook, the hub's secret and the exchange's hand-ins:
every one fails with a permission error, and no token she can read lets her act as ben.
"""

from __future__ import annotations

import json
import os
import pwd
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
import zipfile
from contextlib import contextmanager
from pathlib import Path

import nbformat
import pytest

from grading.course import REPO, SOLUTIONS
from tests.browser.server import SCREENSHOTS, chromium_missing_message, scratch_course
from tests.ports import free_ports

A = "00_getting_started"
NB = f"{A}.ipynb"
STUDENT = "hubt-ada"
OTHER = "hubt-ben"
INSTRUCTOR = "hubt-prof"
ACCOUNTS = (STUDENT, OTHER, INSTRUCTOR)
PASSWORD = "hub-test-password"
START_S = 180
SETUP_S = 900
# the flow fixture (hub, browser, grading) is set up in the first test: its limit is the flow's
pytestmark = [pytest.mark.slow, pytest.mark.browser, pytest.mark.xdist_group("hub"),
              pytest.mark.timeout(2400)]


# ---------------------------------------------------------------- the exercise answered

def exercises() -> list[tuple[str, str, float]]:
    """(solution cell grade_id, its answer without the solution markers, points of the test
    cells that follow it) for every code exercise of the notebook, in order."""
    nb = nbformat.read(SOLUTIONS / A / NB, as_version=4)
    meta = [c.metadata.get("nbgrader", {}) for c in nb.cells]
    found = []
    for i, cell in enumerate(nb.cells):
        if meta[i].get("solution") and cell.cell_type == "code":
            answer = "\n".join(ln for ln in cell.source.splitlines()
                               if "### BEGIN SOLUTION" not in ln and "### END SOLUTION" not in ln)
            after = sum(float(m.get("points", 0)) for m in meta[i + 1:] if m.get("grade"))
            found.append((meta[i]["grade_id"], answer, after))
    return found


def total_points() -> float:
    nb = nbformat.read(SOLUTIONS / A / NB, as_version=4)
    return sum(float(c.metadata.get("nbgrader", {}).get("points", 0)) for c in nb.cells
               if c.metadata.get("nbgrader", {}).get("grade"))


def answered_exercise() -> tuple[str, str, float, float]:
    """(solution cell grade_id, its answer without the solution markers, points of the test
    cells that follow it, points of the whole notebook) for the notebook's last exercise."""
    return (*exercises()[-1], total_points())


# ---------------------------------------------------------------- the hub

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
    def __init__(self, base: Path, students: tuple[str, ...] = (STUDENT, OTHER),
                 instructor: str = INSTRUCTOR):
        self.base, self.students, self.instructor = base, students, instructor
        # one checkout, as docs/servers.md's loop runs: the course make hub closes (2770, files 0660)
        # holds the code that grades it (its labkit is what the sandbox imports)
        self.course = scratch_course(base / "course")
        shutil.copytree(REPO / "labkit", self.course / "labkit",
                        ignore=shutil.ignore_patterns("__pycache__"))
        shutil.copytree(REPO / "grading", self.course / "grading", dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns("__pycache__", "state", "node_modules",
                                                      "collected", "submitted", "autograded",
                                                      "feedback", "reports", "gradebook.db*"))
        self.state = base / "course" / "grading" / "hub" / "state"
        self.exchange = base / "exchange"
        self.port = 0
        self.log = base / "hub.log"
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.port = free_ports(3)   # the hub, its API, the proxy's API
        env = dict(os.environ, HUB_SINGLEUSER_ARGS="--LabApp.expose_app_in_browser=True")
        env.pop("JUPYTERHUB_API_TOKEN", None)
        self.proc = subprocess.Popen(
            [sys.executable, str(REPO / "grading" / "hub" / "run.py"), "--port", str(self.port),
             "--state", str(self.state), "--course", str(self.course),
             "--exchange", str(self.exchange),
             "--students", ",".join(self.students), "--instructor", self.instructor,
             "--password", PASSWORD],
            cwd=REPO, env=env, stdout=open(self.log, "wb"), stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL, start_new_session=True)
        # its set-up (accounts, the users' environment, npm ci of the proxy) ends with the
        # "Course hub on" line; a loaded machine gets there late, so the clock for answering
        # starts there, and the set-up alone gets a bound of its own
        deadline = time.monotonic() + SETUP_S
        while "Course hub on" not in self.tail(n=1 << 30):
            if self.proc.poll() is not None:
                raise AssertionError(f"the hub exited ({self.proc.returncode}):\n{self.tail()}")
            if time.monotonic() > deadline:
                raise AssertionError(f"the hub's set-up did not end in {SETUP_S}s:\n{self.tail()}")
            time.sleep(0.5)
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
        """Stop the hub as make hub-stop does (run.py --stop: Ctrl+C to the hub's process);
        returns the processes it left behind (then killed)."""
        if self.proc is None:
            return []
        if self.proc.poll() is None:
            subprocess.run([sys.executable, str(REPO / "grading" / "hub" / "run.py"), "--stop",
                            "--state", str(self.state)], timeout=240)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.send_signal(signal.SIGINT)
        leftover = [p for p in _processes_of(str(self.base)) if p != self.proc.pid]
        for pid in leftover + [self.proc.pid]:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.proc.wait(timeout=10)
        self.proc = None
        return leftover



@contextmanager
def running_hub(students: tuple[str, ...] = (STUDENT, OTHER), instructor: str = INSTRUCTOR):
    """A started Hub on a scratch course; on leaving, even after a failure, the hub stopped,
    its folders (course copy, exchange) removed and its accounts with their homes deleted."""
    from grading.hub.run import remove_accounts

    accounts = [*students, instructor]
    remove_accounts(accounts)  # a run killed before its clean-up
    base = Path(tempfile.mkdtemp(prefix="course-hub-"))
    base.chmod(0o755)
    h = Hub(base, students, instructor)
    try:
        h.start()
        yield h
    finally:
        left = h.stop()
        shutil.rmtree(base, ignore_errors=True)
        remove_accounts(accounts)
        kept = [n for n in accounts if Path("/home", n).exists() or _account(n)]
        assert not left, f"the hub left processes behind after Ctrl+C: {left}"
        assert not kept, f"accounts or home folders left behind: {kept}"


@pytest.fixture(scope="module")
def hub():
    missing = chromium_missing_message()
    if missing:
        pytest.fail(missing, pytrace=False)
    if os.geteuid() != 0:
        pytest.skip("the hub makes Unix accounts and runs servers as them: needs root")
    with running_hub() as h:
        yield h


def _account(name: str):
    try:
        return pwd.getpwnam(name)
    except KeyError:
        return None


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
    """A step of grading/hub/exchange.py as the instructor runs it (docs/servers.md's commands)."""
    p = subprocess.run([sys.executable, str(course / "grading" / "hub" / "exchange.py"), step, A,
                        "--course", str(course), "--exchange", str(course.parent / "exchange")],
                       cwd=course, capture_output=True, text=True, timeout=300)
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
    # the typed text reaches the notebook's model before the save: on a loaded machine a save sent
    # at once can write the notebook as it was, and the late edit leaves it unsaved for good
    page.wait_for_function("""([i, text]) => {
        const c = window.jupyterapp.shell.currentWidget.content.widgets[i];
        return [].concat(c.model.toJSON().source).join('') === text;
    }""", arg=[index, answer], timeout=60_000)
    page.keyboard.press("Escape")
    for attempt in range(3):  # as a learner would: Ctrl+S again when the first did not take
        page.keyboard.press("Control+s")
        try:
            page.wait_for_function("() => !window.jupyterapp.shell.currentWidget.context.model.dirty",
                                   timeout=30_000)
            return
        except Exception:  # noqa: BLE001 (playwright's TimeoutError)
            dialogs = page.locator(".jp-Dialog").all_inner_texts()
            if dialogs or attempt == 2:
                raise AssertionError(f"{path} was not saved after Ctrl+S ({attempt + 1} time(s)); "
                                     f"dialogs open: {dialogs or 'none'}") from None


def click_in_row(panel, list_id: str, button: str, timeout_s: float = 60) -> None:
    row = panel.locator(f"#{list_id} .list_item").filter(has_text=A)
    row.first.wait_for(timeout=timeout_s * 1000)
    row.first.get_by_role("button", name=button, exact=True).click()


def fetch_answer_submit(page, user: str, answers: list[tuple[str, str]]):
    """In the user's JupyterLab: Assignment List > Fetch, each (grade_id, answer) typed into
    its cell and saved, Submit. The Assignment List panel, for Fetch Feedback later."""
    home = Path(pwd.getpwnam(user).pw_dir)
    panel = open_assignment_list(page)
    click_in_row(panel, "released_assignments_list", "Fetch")
    (home / A / NB).exists() or panel.locator("#fetched_assignments_list").get_by_text(A).first \
        .wait_for(timeout=60_000)
    assert (home / A / NB).is_file(), f"Fetch did not put {A}/{NB} in {home}"
    for grade_id, answer in answers:
        answer_in_notebook(page, f"{A}/{NB}", grade_id, answer)
        saved = nbformat.read(home / A / NB, as_version=4)
        cell = next(c for c in saved.cells
                    if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)
        assert "raise NotImplementedError" not in cell.source and \
            answer.split("\n")[-1].strip() in cell.source, \
            f"the typed answer was not saved:\n{cell.source}"
    page.evaluate("() => window.jupyterapp.shell.activateById('nbgrader-assignment-list')")
    page.locator("#refresh_assignments_list").click()
    click_in_row(panel, "fetched_assignments_list", "Submit")
    panel.locator("#submitted_assignments_list .list_item").filter(has_text=A).first.wait_for(
        timeout=60_000)
    return panel


def fetch_feedback(page, panel, user: str) -> list[Path]:
    """Assignment List > Fetch Feedback; the feedback files it put in the user's folder."""
    page.evaluate("() => window.jupyterapp.shell.activateById('nbgrader-assignment-list')")
    page.locator("#refresh_assignments_list").click()
    click_in_row(panel, "submitted_assignments_list", "Fetch Feedback")
    panel.get_by_text("(view feedback)").first.wait_for(timeout=60_000)
    return sorted((Path(pwd.getpwnam(user).pw_dir) / A / "feedback").glob(f"*/{A}.html"))


def make_autograde(course: Path, collected: Path, *options: str, timeout_s: float = 600):
    """make autograde ASSIGNMENT=A SUBMISSIONS=<collected>, run in the course the hub closed."""
    return subprocess.run([sys.executable, str(course / "grading" / "batch" / "autograde.py"), A,
                           str(collected), *options],
                          cwd=course, capture_output=True, text=True, timeout=timeout_s)


# ---------------------------------------------------------------- the tests

@pytest.fixture(scope="module")
def flow(hub, browser):
    """The whole hub flow once; what it produced, for the checks below."""
    started: list[subprocess.Popen] = []
    try:
        yield run_flow(hub, browser, started)
    finally:
        from grading.batch.cluster import kill_tree

        for proc in started:  # the LMS-zip grading, if a step failed before its check
            if proc.poll() is None:
                kill_tree(proc.pid)
            proc.wait()


def run_flow(hub, browser, started: list) -> dict:
    grade_id, answer, expected, total = answered_exercise()
    timings = {}
    t0 = time.monotonic()

    # 1. the instructor releases the assignment to the exchange: the learner version
    #    generated from solutions/, even where notebooks/ holds somebody's answers
    shutil.copyfile(SOLUTIONS / A / NB, hub.course / "notebooks" / A / NB)
    exchange_py("release", hub.course)
    released = nbformat.read(hub.exchange / "fast-dl" / "outbound" / A / NB, as_version=4)
    blanks = [c.source for c in released.cells if c.metadata.get("nbgrader", {}).get("solution")
              and c.cell_type == "code"]
    assert blanks and all("raise NotImplementedError" in b for b in blanks), \
        "exchange.py release put answers in the exchange"

    # 2. the student fetches, answers one exercise, submits (the instructor logs in too:
    #    the hub starts both JupyterLabs at once)
    teacher, page = new_page(browser), new_page(browser)
    log_in(teacher, hub, INSTRUCTOR, wait=False)
    log_in(page, hub, STUDENT)
    timings["release, log in, spawn"] = time.monotonic() - t0
    formgrader = page.request.get(f"{hub.url}/user/{STUDENT}/formgrader")
    assert formgrader.status == 404, "a student's server must not serve the formgrader"
    panel = fetch_answer_submit(page, STUDENT, [(grade_id, answer)])
    page.screenshot(path=str(SCREENSHOTS / "hub__student_submitted.png"))
    timings["fetch, answer, submit"] = time.monotonic() - t0 - sum(timings.values())

    # 3. the instructor collects, grades with the course's grading, releases feedback
    log = exchange_py("collect", hub.course)
    collected = hub.course / "grading" / "hub" / "collected"
    exchange = hub.exchange
    assert (collected / STUDENT / A / NB).is_file(), (
        f"collect found no submission:\n{log}\nexchange holds: "
        f"{sorted(str(p.relative_to(exchange)) for p in exchange.rglob('*'))}")
    timings["collect"] = time.monotonic() - t0 - sum(timings.values())
    lms = grade_lms_zip(collected / STUDENT / A / NB, hub.base / "lms")  # meanwhile
    started.append(lms[0])
    grade = make_autograde(hub.course, collected, "--jobs", "1", "--cell-timeout", "60")
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
    formgrader_panel(teacher)
    teacher.context.close()
    timings["instructor's formgrader"] = time.monotonic() - t0 - sum(timings.values())

    # 4. the student fetches the feedback
    fetched = fetch_feedback(page, panel, STUDENT)
    page.screenshot(path=str(SCREENSHOTS / "hub__student_feedback.png"))
    timings["fetch feedback"] = time.monotonic() - t0 - sum(timings.values())
    result = {"expected": expected, "total": total, "grade_log": grade.stdout,
            "feedback": fetched, "lms": lms, "timings": timings, "page": page}
    return result


def formgrader_panel(teacher) -> None:
    """The Formgrader panel inside the instructor's JupyterLab (an iframe of the server's
    /formgrader, which JupyterHub's default CSP, frame-ancestors 'none', would blank) lists
    the assignment with its one submission."""
    teacher.evaluate("() => window.jupyterapp.commands.execute('nbgrader:open-formgrader')")
    frame = teacher.frame_locator("iframe[src*='formgrader']").first
    cell = frame.locator("tr", has_text=A).locator(".num-submissions")
    try:
        cell.wait_for(timeout=90_000)
        shown = cell.inner_text().strip()
    except Exception as exc:
        teacher.screenshot(path=str(SCREENSHOTS / "hub__formgrader_panel.png"))
        raise AssertionError("the Formgrader panel in the instructor's JupyterLab shows no "
                             f"assignment table (framed page refused?): {exc}") from None
    teacher.screenshot(path=str(SCREENSHOTS / "hub__formgrader_panel.png"))
    assert shown == "1", f"the Formgrader panel shows {shown!r} submissions of {A}, not 1"


def test_student_submits_on_the_hub_and_gets_the_course_grading_back(hub, flow):
    from grading.batch.autograde import course_db_url, read_gradebook

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
        [sys.executable, str(REPO / "grading" / "batch" / "autograde.py"), A, str(archive),
         "--course", str(course), "--jobs", "1", "--cell-timeout", "60", "--quiet"],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return proc, course


def test_the_same_hand_in_as_an_lms_zip_grades_the_same(flow):
    """What the student submitted on the hub, collected and zipped as an LMS exports it,
    graded by make autograde's zip path (into a fresh course): the same score, feedback."""
    from grading.batch.autograde import course_db_url, read_gradebook

    proc, course = flow["lms"]
    log = proc.communicate(timeout=600)[0]
    assert proc.returncode == 0, log[-3000:]
    rows, _ = read_gradebook(course_db_url(course), A)
    assert {r["student"]: r["score"] for r in rows} == {STUDENT: flow["expected"]}, log[-3000:]
    assert (course / "grading" / "feedback" / STUDENT / A / f"{A}.html").is_file()


# ---------------------------------------------------------------- students kept apart

PROBE = r'''
import glob, json, os, pwd, sqlite3
ME, BEN = pwd.getpwuid(os.getuid()).pw_name, pwd.getpwnam(%(other)r)
R = {"uid": os.getuid(), "me": ME}

def attempt(name, fn):
    try:
        fn()
        R[name] = "ALLOWED"
    except PermissionError:
        R[name] = "PermissionError"
    except Exception as exc:
        R[name] = f"{type(exc).__name__}: {exc}"

def sqlite_read():
    try:
        sqlite3.connect(%(gradebook)r).execute("select * from sqlite_master").fetchall()
    except sqlite3.OperationalError:
        os.stat(%(gradebook)r)  # why it could not open: raises PermissionError
        raise

attempt("read ben's file", lambda: open(BEN.pw_dir + "/notes.txt").read())
attempt("list ben's home", lambda: os.listdir(BEN.pw_dir))
attempt("write into ben's home", lambda: open(BEN.pw_dir + "/from-ada.txt", "w"))
attempt("list the exchange's hand-ins", lambda: os.listdir(%(inbound)r))
attempt("read a solution", lambda: open(%(solution)r).read())
attempt("write a solution", lambda: open(%(solution)r, "a"))
attempt("read the gradebook", lambda: open(%(gradebook)r, "rb").read())
attempt("open the gradebook with sqlite3", sqlite_read)
attempt("read the hub's cookie secret", lambda: open(%(secret)r, "rb").read())
R["ben's hand-ins found"] = glob.glob(%(inbound)r + "/" + BEN.pw_name + "+*")
ben_pids = [p for p in glob.glob("/proc/[0-9]*") if os.stat(p).st_uid == BEN.pw_uid]
R["ben's processes"] = len(ben_pids)
denied = []
for p in ben_pids:
    try:
        open(p + "/environ", "rb").read()
        denied.append("ALLOWED")
    except PermissionError:
        denied.append("PermissionError")
    except FileNotFoundError:
        pass
R["read ben's /proc/*/environ"] = sorted(set(denied))
tokens = set()
for p in glob.glob("/proc/[0-9]*/environ"):
    try:
        for kv in open(p, "rb").read().split(b"\0"):
            if kv.startswith(b"JUPYTERHUB_API_TOKEN="):
                tokens.add(kv.split(b"=", 1)[1].decode())
    except OSError:
        pass
R["tokens"] = sorted(tokens)
print("PROBE" + json.dumps(R))
'''

SHELL_PROBE = ('for c in "cat {ben}/notes.txt" "ls {ben}" "touch {ben}/from-ada-sh" '
               '"ls {inbound}" "cat {solution}" "touch {solution}" "cat {gradebook}" '
               '"cat {secret}" {environ}; do '
               'if sh -c "$c" >/dev/null 2>{out}.err; then echo "ALLOWED $c"; '
               'elif grep -q "Permission denied" {out}.err; then echo "DENIED $c"; '
               'else echo "OTHER $c: $(cat {out}.err)"; fi; done > {out}.tmp; '
               'echo "uid $(id -u)" >> {out}.tmp; mv {out}.tmp {out}\n')


def probe_paths(hub) -> dict:
    ben = pwd.getpwnam(OTHER)
    return {"other": OTHER, "inbound": str(hub.exchange / "fast-dl" / "inbound"),
            "solution": str(hub.course / "solutions" / A / NB),
            "gradebook": str(hub.course / "grading" / "gradebook.db"),
            "secret": str(hub.state / "jupyterhub_cookie_secret"), "ben": ben.pw_dir}


def run_in_a_notebook_cell(page, code: str) -> str:
    """A new notebook in the user's JupyterLab, ``code`` in its cell, run; the cell's output."""
    return page.evaluate("""async (code) => {
        const app = window.jupyterapp;
        const panel = await app.commands.execute('notebook:create-new', {kernelName: 'python3'});
        await panel.context.ready;
        await panel.sessionContext.ready;
        app.shell.activateById(panel.id);
        const cell = panel.content.activeCell;
        cell.model.sharedModel.setSource(code);
        await app.commands.execute('notebook:run-cell');
        for (let i = 0; i < 600; i++) {
            const out = cell.model.outputs.toJSON().map(
                (o) => o.text || (o.traceback || []).join('\\n') || '').join('');
            if (out.includes('PROBE') || out.includes('Error')) return out;
            await new Promise((r) => setTimeout(r, 200));
        }
        return 'no output in 120 s';
    }""", code)


def test_students_are_kept_apart(hub, flow, browser):
    """From ada's JupyterLab, a notebook cell and a terminal: every read and write of what is
    not hers fails with a permission error, and no token she can read acts as ben."""
    ben = pwd.getpwnam(OTHER)
    notes = Path(ben.pw_dir) / "notes.txt"
    notes.write_text("ben's answers\n")
    os.chown(notes, ben.pw_uid, ben.pw_gid)
    other = new_page(browser)
    log_in(other, hub, OTHER)  # ben's server runs, with ben's token in its environment
    page, paths = flow["page"], probe_paths(hub)
    out = run_in_a_notebook_cell(page, PROBE % paths)
    assert "PROBE" in out, f"the probe cell printed no result:\n{out}"
    r = json.loads(out.split("PROBE", 1)[1].strip().splitlines()[0])
    assert r["me"] == STUDENT and r["uid"] == pwd.getpwnam(STUDENT).pw_uid != 0, r
    denied = {k: v for k, v in r.items() if isinstance(v, str) and k not in ("me",)}
    assert denied and all(v == "PermissionError" for v in denied.values()), \
        f"from ada's notebook, not all refused: {json.dumps(denied, indent=1)}"
    assert r["ben's processes"] > 0 and r["read ben's /proc/*/environ"] == ["PermissionError"], r
    assert r["ben's hand-ins found"] == [], r
    # every token ada can read is her own: none lists ben's files or reads ben on the hub
    assert r["tokens"], "ada's notebook read no JUPYTERHUB_API_TOKEN at all (its own)"
    for token in r["tokens"]:
        who = json.load(urllib.request.urlopen(urllib.request.Request(
            f"{hub.url}/hub/api/user", headers={"Authorization": f"token {token}"})))
        assert who["name"] == STUDENT, f"a token ada can read belongs to {who['name']}"
        for url in (f"{hub.url}/user/{OTHER}/api/contents", f"{hub.url}/hub/api/users/{OTHER}"):
            req = urllib.request.Request(url, headers={"Authorization": f"token {token}"})
            try:
                with urllib.request.urlopen(req) as resp:
                    status = resp.status
            except urllib.error.HTTPError as exc:
                status = exc.code
            assert status in (403, 404), f"ada's token on {url}: HTTP {status}"
    # ben's server through the proxy, with ada's login cookie
    resp = page.request.get(f"{hub.url}/user/{OTHER}/api/contents", max_redirects=0)
    assert resp.status in (302, 403, 404) and "notes.txt" not in resp.text(), resp.status
    # the same from a terminal in ada's JupyterLab
    home = Path(pwd.getpwnam(STUDENT).pw_dir)
    result = home / "shell-probe.txt"
    environ = " ".join(f'"cat /proc/{pid}/environ"' for pid in _pids_of(ben.pw_uid)[:3])
    command = SHELL_PROBE.format(**paths, out=result, environ=environ)
    page.evaluate("async () => { const app = window.jupyterapp; "
                  "const t = await app.commands.execute('terminal:create-new'); "
                  "app.shell.activateById(t.id); }")
    page.locator(".jp-Terminal .xterm-helper-textarea").last.wait_for(state="attached")
    page.locator(".jp-Terminal").last.click()
    page.keyboard.type(command)
    deadline = time.monotonic() + 60
    while not result.exists() and time.monotonic() < deadline:
        time.sleep(0.5)
    page.screenshot(path=str(SCREENSHOTS / "hub__student_terminal.png"))
    assert result.exists(), "the terminal in ada's JupyterLab did not run the probe"
    lines = result.read_text().splitlines()
    assert lines[-1] == f"uid {pwd.getpwnam(STUDENT).pw_uid}", lines
    assert len(lines) >= 9 and all(ln.startswith("DENIED ") for ln in lines[:-1]), \
        "from ada's terminal, not all refused:\n" + "\n".join(lines)
    other.context.close()


def _pids_of(uid: int) -> list[int]:
    out = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and entry.stat().st_uid == uid:
                out.append(int(entry.name))
        except OSError:
            continue
    return out

