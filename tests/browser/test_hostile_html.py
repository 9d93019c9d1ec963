"""A hostile hand-in runs no script in the instructor's formgrader or in its feedback.

Mallory hands in 00_getting_started's solution plus markdown and code cells whose HTML
(``<img onerror>``, ``<script>``, ``<svg onload>``, ``<iframe srcdoc>``, ``<details
ontoggle>``, ``display(HTML(...))``, ``display(Javascript(...))``) runs script that, as the
instructor, writes a file into the course root through the Jupyter server's contents API,
changes the page title and opens a dialog. The class is graded the course's way
(grading/batch/autograde.py: sandbox, judge, nbgrader), then the submission is opened in the
formgrader of an instructor's Jupyter server (the course's config) and its feedback file is
opened from the same origin, in headless Chromium: no request, no file, no title change, no
dialog. The same hand-in rendered by nbgrader without the sanitizer, in the same browser
against the same server, does all three: so the test can fail.

Some cells act only when the viewer clicks: ``javascript:`` links written as a markdown
reference definition inside a blockquote or a list item, with nested brackets in the link
text, behind a ``files/`` prefix, around an image, wrapped in a 900px span or a fake
"session expired" block that covers the page, or under bootstrap's full-screen backdrop
class; a tab inside the scheme, a link inside MathML, a form button's ``formaction``. Each
page is clicked at its centre and on every such link: no request to ``/api/contents``, no
file written, no dialog.
"""

from __future__ import annotations

import copy
import shutil
import time

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_output

from grading.batch import autograde as ag
from grading.course import SOLUTIONS
from tests.browser.server import LabServer

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.xdist_group("browser")]

A = "00_getting_started"
STUDENT = "mallory"
SETTLE_S = 5          # after the page's load event: timers, image errors, frames
PAGE_S = 120_000      # ms; a loaded machine renders slowly


def payload(tag: str) -> str:
    """JavaScript (no double quotes: it sits in HTML attributes) that acts as the viewer."""
    return ("(function(){var x=(document.cookie.match(/_xsrf=([^;]+)/)||[])[1]||'';"
            f"fetch('/api/contents/pwned-{tag}.txt',{{method:'PUT',credentials:'same-origin',"
            "headers:{'Content-Type':'application/json','X-XSRFToken':decodeURIComponent(x)},"
            f"body:JSON.stringify({{type:'file',format:'text',content:'{tag}'}})}});"
            f"document.title='PWNED {tag}';alert('PWNED {tag}');}})()")


MARKDOWN = {
    "md-img": '<img src=x onerror="{js}">',
    "md-script": "<script>{js}</script>",
    "md-svg": '<svg onload="{js}"></svg>',
    "md-iframe": '<iframe srcdoc="<script>/*{mark}*/parent.eval(atob(\'{b64}\'))</script>"></iframe>',
    "md-details": '<details open ontoggle="{js}">x</details>',
}
GIF = "R0lGODlhAQABAIAAAAAAAP///ywAAAAAAQABAAACAUwAOw=="
# clicked: {link} is a javascript: URL that runs the payload, {text} the link's own text
CLICKS = {
    "click-quote": "> see [{text}][n]\n>\n> [n]: {link}",
    "click-list": "1. see [{text}][n]\n\n    [n]: {link}",
    "click-nested": "[{text} [full] notes]({link})",
    "click-900px": '<span style="font-size:900px;line-height:1">[{text} [x]]({link})</span>',
    "click-expired": ('<div style="background-color:#f5f5f5;color:#333;font-size:40px;'
                      'text-align:center;padding:400px 0;margin-left:-3000px;'
                      'margin-right:-3000px">\n\nYour session has expired. '
                      "[{text} [log in again]]({link})\n\n</div>"),
    "click-backdrop": '[<span class="modal-backdrop"></span>{text} [x]]({link})',
    "click-files": "[{text}](files/{link})",
    "click-image": "[{text} ![plot](data:image/gif;base64," + GIF + ")]({link})",
    "click-tab": '<a href="jav&#x09;ascript:{js}">{text}</a>',
    "click-math": '<math><mtext><a href="{link}">{text}</a></mtext></math>',
    "click-form": '<form><button formaction="{link}">{text}</button></form>',
}
OUTPUTS = {
    "out-html": lambda js: ("text/html", f'<img src=x onerror="{js}">'),
    "out-js": lambda js: ("application/javascript", js),
    "out-script": lambda js: ("text/html", f"<script>{js}</script>"),
}


def hostile_submission() -> nbformat.NotebookNode:
    """The solution, plus hostile markdown cells and a code cell whose run displays hostile
    outputs (its saved outputs are the same, as a learner's own run would leave them)."""
    import base64

    nb = copy.deepcopy(nbformat.read(SOLUTIONS / A / f"{A}.ipynb", as_version=4))
    for tag, src in MARKDOWN.items():
        js = payload(tag)
        nb.cells.append(new_markdown_cell(src.format(
            js=js, mark=f"pwned-{tag}", b64=base64.b64encode(js.encode()).decode())))
    for tag, src in CLICKS.items():
        js = f"eval(atob('{base64.b64encode(payload(tag).encode()).decode()}'))//pwned-{tag}"
        nb.cells.append(new_markdown_cell(src.format(link=f"javascript:{js}", js=js,
                                                     text=f"open-{tag}")))
    lines, saved = ["from IPython.display import HTML, Javascript, display"], []
    for tag, make in OUTPUTS.items():
        mime, value = make(payload(tag))
        call = "Javascript" if mime == "application/javascript" else "HTML"
        lines.append(f"display({call}({value!r}))")
        saved.append(new_output("display_data", {mime: value, "text/plain": f"<{call} object>"}))
    # before the first test cell: outputs made after it are not kept (grading/trusted/judge.py), and
    # these must reach the graded copy for the sanitizer to be shown working on them
    first_test = next(i for i, c in enumerate(nb.cells)
                      if c.metadata.get("nbgrader", {}).get("grade")
                      and not c.metadata["nbgrader"].get("solution"))
    nb.cells.insert(first_test, new_code_cell("\n".join(lines), outputs=saved, execution_count=1))
    return nb


MARKS = [f"pwned-{tag}" for tag in [*MARKDOWN, *CLICKS, *OUTPUTS]]
OUTPUT_MARKS = {f"pwned-{tag}" for tag in OUTPUTS}


def unsanitized_feedback(nb) -> str:
    """nbgrader's feedback page of ``nb`` with nbconvert's defaults (no sanitizer); cells'
    scores left out (GetGrades fills them from a gradebook)."""
    from tests.grading.test_sanitize import render

    nb = copy.deepcopy(nb)
    for cell in nb.cells:
        cell.metadata.pop("nbgrader", None)
    return render(nb, "feedback", course_config=False)


def dangerous(nb) -> set[str]:
    """The cases that page puts where a browser acts on them (tests/grading/test_sanitize.py)."""
    from tests.grading.test_sanitize import acting

    return acting(unsanitized_feedback(nb), MARKS)


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    base = tmp_path_factory.mktemp("hostile")
    course = base / "course"
    (course / "solutions").mkdir(parents=True)
    shutil.copytree(SOLUTIONS / A, course / "solutions" / A)
    subs = base / "submissions"
    (subs / STUDENT / A).mkdir(parents=True)
    hand_in = hostile_submission()
    assert dangerous(hand_in) == set(MARKS), "the hand-in carries every hostile case"
    nbformat.write(hand_in, str(subs / STUDENT / A / f"{A}.ipynb"))
    out = ag.autograde(ag.Options(A, subs, course, jobs=1, cell_timeout=90, quiet=True))
    assert [r["student"] for r in out.rows] == [STUDENT], out.problems
    assert out.rows[0]["score"] == out.rows[0]["max_score"], "honest work keeps full marks"
    return {"course": course, "hand_in": hand_in, "base": base}


@pytest.fixture(scope="module")
def server(graded):
    """An instructor's Jupyter server on the graded course (the course's config: formgrader)."""
    lab = LabServer(graded["course"], graded["base"])
    try:
        lab.start()
        yield lab
    finally:
        lab.stop()


class Watch:
    """A browser page that records every request, dialog and title it sees."""

    def __init__(self, chromium, server: LabServer):
        self.server = server
        self.context = chromium.new_context()
        self.context.set_default_timeout(PAGE_S)
        self.page = self.context.new_page()
        self.requests: list[tuple[str, str]] = []
        self.dialogs: list[str] = []
        self.page.on("request", lambda r: self.requests.append((r.method, r.url)))
        self.page.on("dialog", self._dialog)
        # log in as the instructor (token), which also sets the _xsrf cookie a script reads
        self.page.goto(f"{server.url}/formgrader?token={server.token}", wait_until="load")
        assert any(c["name"] == "_xsrf" for c in self.context.cookies()), \
            "the instructor's session has no _xsrf cookie: the attack could not be shown"

    def _dialog(self, dialog) -> None:
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def open(self, url: str, html: str | None = None) -> str:
        """Open ``url`` (served as ``html`` from the server's own origin when given), wait
        for it to settle, return its title."""
        self.requests.clear()
        if html is not None:
            self.page.route(url, lambda route: route.fulfill(
                status=200, content_type="text/html", body=html))
        self.page.goto(url, wait_until="load")
        time.sleep(SETTLE_S)
        return self.page.title()

    def click_everything(self, url: str) -> None:
        """Click the page's centre, then every clicked case's link where it is still on the
        page: with the mouse where it is drawn (whatever covers it gets the click) and on the
        element itself; back to ``url`` after any navigation."""
        size = self.page.viewport_size or {"width": 1280, "height": 720}
        targets = [None, *CLICKS]
        for tag in targets:
            if tag is None:
                self.page.mouse.click(size["width"] / 2, size["height"] / 2)
            else:
                found = self.page.locator("a, button", has_text=f"open-{tag}")
                if found.count():
                    found.first.click(force=True, timeout=10_000)
                    found.first.dispatch_event("click")
            time.sleep(0.5)
            if self.page.url != url:
                self.page.goto(url, wait_until="load")
        time.sleep(SETTLE_S)

    def acted(self, course) -> dict:
        hostile = [(m, u) for m, u in self.requests
                   if "pwned" in u or m == "PUT" or "/api/contents" in u]
        return {"requests": hostile, "dialogs": list(self.dialogs),
                "files": sorted(p.name for p in course.glob("pwned-*"))}

    def close(self) -> None:
        self.context.close()


@pytest.fixture
def watch(chromium, server):
    w = Watch(chromium, server)
    try:
        yield w
    finally:
        w.close()


def submission_id(course) -> str:
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course / 'grading' / 'gradebook.db'}") as gb:
        return gb.find_submission_notebook(A, A, STUDENT).id


def test_stored_notebook_has_no_script(graded):
    course = graded["course"]
    stored = nbformat.read(course / "grading" / "autograded" / STUDENT / A / f"{A}.ipynb", 4)
    assert dangerous(graded["hand_in"]) == set(MARKS)
    # outputs are cleaned in the stored copy; markdown stays as written and is cleaned
    # after rendering, by every exporter of the course's config
    assert not dangerous(stored) & OUTPUT_MARKS, dangerous(stored)
    from tests.grading.test_sanitize import acting, render

    for cell in stored.cells:
        cell.metadata.pop("nbgrader", None)
    assert not acting(render(stored, "feedback", course_config=True), MARKS)


def test_formgrader_runs_no_submission_script(graded, server, watch):
    course = graded["course"]
    url = f"{server.url}/formgrader/submissions/{submission_id(course)}/"
    title = watch.open(url)
    body = watch.page.content()
    assert "Getting started" in body, "the formgrader did not show the submission"
    assert "open-click-nested" in body, "the clicked cases are not on the page"
    watch.click_everything(url)
    assert watch.acted(course) == {"requests": [], "dialogs": [], "files": []}
    assert "PWNED" not in title + watch.page.title(), title


def test_feedback_runs_no_submission_script(graded, server, watch):
    course = graded["course"]
    feedback = (course / "grading" / "feedback" / STUDENT / A / f"{A}.html").read_text()
    url = f"{server.url}/feedback-{STUDENT}.html"
    title = watch.open(url, feedback)
    assert "Getting started" in watch.page.content()
    watch.click_everything(url)
    assert watch.acted(course) == {"requests": [], "dialogs": [], "files": []}
    assert "PWNED" not in title + watch.page.title(), title


def test_the_same_hand_in_unsanitized_runs_its_script(graded, server, watch):
    """The control: nbgrader's feedback rendering of the hand-in without the sanitizer,
    opened the same way, writes into the course, changes the title and opens a dialog; a
    click on each clicked case writes its file."""
    course = graded["course"]
    raw = unsanitized_feedback(graded["hand_in"])
    try:
        url = f"{server.url}/raw-{STUDENT}.html"
        title = watch.open(url, raw)
        deadline = time.monotonic() + 60
        while not list(course.glob("pwned-*")) and time.monotonic() < deadline:
            time.sleep(1)
        acted = watch.acted(course)
        assert title.startswith("PWNED"), title
        assert acted["dialogs"] and acted["files"], acted
        assert any(m == "PUT" for m, _ in acted["requests"]), acted
        watch.click_everything(url)
        written = {p.name for p in course.glob("pwned-click-*")}
        assert written == {f"pwned-{tag}.txt" for tag in CLICKS}, sorted(written)
    finally:
        for path in course.glob("pwned-*"):
            path.unlink()
