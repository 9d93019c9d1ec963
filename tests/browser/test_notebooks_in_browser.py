"""Every course notebook as a learner meets it: JupyterLab in headless Chromium.

For each notebook found in notebooks/ and solutions/ (no hand-listed names): Run All, wait
until the kernel is idle; solutions show no error, learner notebooks only the exercise
stubs' NotImplementedError in graded test cells (a demo that needs an unwritten exercise
says so in one line instead of a traceback) and still run to the last cell; every widget renders; at least
one widget changes what it shows when a control is moved. Screenshots of every notebook
and of every widget after it was moved go to test-artifacts/screenshots/.
"""

from __future__ import annotations

import pytest

from tests.browser.lab import Lab, NotebookRun, discover_notebooks, graded_test_cells, is_learner, slug

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]

NOTEBOOKS = discover_notebooks()
ALLOWED_IN_LEARNER = {"NotImplementedError"}


def test_there_are_notebooks_to_open():
    assert any(is_learner(p) for p in NOTEBOOKS), "no notebook found in notebooks/"
    assert any(not is_learner(p) for p in NOTEBOOKS), "no notebook found in solutions/"


@pytest.fixture(scope="module", params=NOTEBOOKS)
def ran(request, lab: Lab) -> NotebookRun:
    """The notebook opened in JupyterLab with all its cells run (closed again afterwards)."""
    path = request.param
    try:
        lab.open(path)
        run = lab.run_all(path)
        lab.screenshot(slug(path), full_notebook=path)
        yield run
    finally:
        lab.close(path)


def test_run_all_shows_no_unexpected_error(ran: NotebookRun):
    assert ran.timed_out is None, ran.timed_out
    learner = is_learner(ran.path)
    tests = graded_test_cells(ran.path) if learner else set()
    problems = []
    for cell in ran.code_cells():
        for err in cell.errors():
            if err.get("ename") in ALLOWED_IN_LEARNER and cell.index in tests:
                continue
            problems.append(ran.describe_error(cell, err))
    kind = ("learner notebook (NotImplementedError allowed only in graded test cells; a demo "
            "cell should print one 'Finish ... first' line)" if learner else "solution")
    assert not problems, f"{ran.path}: errors shown after Run All in this {kind}:\n" + \
        "\n".join(problems)
    not_run = [c.label() for c in ran.code_cells()
               if c.execution_count is None and c.source.strip()]
    assert not not_run, f"{ran.path}: cells that never ran after Run All: {not_run}"


RAW_TRACEBACK = "Traceback (most recent call last)"


def _text(output: dict) -> str:
    """Everything an output shows as text: a stream's text, a result's text/plain and HTML."""
    def joined(value) -> str:
        return "".join(value) if isinstance(value, list) else str(value or "")
    data = output.get("data") or {}
    return "\n".join(joined(part) for part in
                     (output.get("text"), data.get("text/plain"), data.get("text/html")))


def test_run_all_shows_no_raw_traceback_or_warning(ran: NotebookRun):
    """Run All of a fresh learner notebook, before any exercise is done: outside the graded test
    cells (whose stubs raise NotImplementedError) no output holds a printed traceback (a demo
    that needs an exercise says "Finish ... first" in one line, workers' tracebacks included) and
    nothing is written to stderr (a library warning, a legend with no lines, a text progress bar).
    Solutions: no printed traceback anywhere."""
    assert ran.timed_out is None, ran.timed_out
    learner = is_learner(ran.path)
    tests = graded_test_cells(ran.path) if learner else set()
    problems = []
    for cell in ran.code_cells():
        if cell.index in tests:
            continue
        for out in cell.outputs:
            text = _text(out)
            if RAW_TRACEBACK in text:
                start = text.index(RAW_TRACEBACK)
                problems.append(f"{cell.label()}: a printed traceback: {text[start:start + 300]!r}")
            elif learner and out.get("output_type") == "stream" and out.get("name") == "stderr" \
                    and text.strip():
                problems.append(f"{cell.label()}: stderr: {text.strip()[:300]!r}")
    assert not problems, (f"{ran.path}: after Run All, outputs a learner should not see "
                          "(say 'Finish Exercise N first' in one line; silence warnings at "
                          "their source):\n" + "\n".join(problems))


def test_widgets_render_and_respond(ran: NotebookRun, lab: Lab):
    assert ran.timed_out is None, ran.timed_out
    widget_cells = [c for c in ran.code_cells() if c.widget_model_ids()]
    assert widget_cells, (
        f"{ran.path}: no widget after Run All; every notebook needs at least one "
        "interactive widget (DESIGN.md, Notebook shape), e.g. labkit.widgets.interactive_figure")
    problems = lab.wait_widgets_rendered(ran.path)
    assert not problems, f"{ran.path}: widgets that did not render:\n" + "\n".join(problems)

    roots = lab.top_level_widgets(ran.path)
    assert roots, (f"{ran.path}: every widget output was closed by the kernel (finished "
                   "progress bars?); no interactive widget is left on screen")
    report, responded = [], 0
    for i, root in enumerate(roots, start=1):
        changed, tried = lab.interact(root)
        responded += changed
        report.append(f"widget {i}: " + "; ".join(tried))
        lab.screenshot(f"{slug(ran.path)}__widget{i}", locator=root)
    assert responded, (f"{ran.path}: moving a control changed nothing on screen in any of its "
                       f"{len(roots)} widgets:\n" + "\n".join(report))
