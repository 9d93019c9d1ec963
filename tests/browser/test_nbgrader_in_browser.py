"""nbgrader's JupyterLab extensions as a learner and an instructor use them.

The notebook toolbar's Validate button passes a solution and reports failures on the
untouched learner notebook; the Nbgrader menu opens the assignment list and formgrader.
"""

from __future__ import annotations

import re

import pytest

from grading.course import NOTEBOOKS, assignments
from tests.browser.lab import Lab

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]

RELEASED = [a for a in assignments() if (NOTEBOOKS / a / f"{a}.ipynb").is_file()]
# The first assignment (00_getting_started) is the short one: validating it is quick.
ASSIGNMENT = RELEASED[0] if RELEASED else None


def _validate(lab: Lab, path: str) -> tuple[str, str]:
    try:
        lab.open(path)
        kind, text = lab.validate(path)
        lab.screenshot(f"validate__{path.split('/')[0]}__{ASSIGNMENT}")
        lab.dismiss_dialog()
        return kind, text
    finally:
        lab.close(path)


@pytest.mark.skipif(ASSIGNMENT is None, reason="no assignment released in notebooks/")
def test_validate_button_passes_the_solution(lab: Lab):
    path = f"solutions/{ASSIGNMENT}/{ASSIGNMENT}.ipynb"
    kind, text = _validate(lab, path)
    assert kind == "validation-success", (
        f"{path}: Validate should pass the solution, got {kind}:\n{text[:3000]}")
    assert "Success! Your notebook passes all the tests." in text


@pytest.mark.skipif(ASSIGNMENT is None, reason="no assignment released in notebooks/")
def test_validate_button_reports_failures_on_the_learner_notebook(lab: Lab):
    path = f"notebooks/{ASSIGNMENT}/{ASSIGNMENT}.ipynb"
    kind, text = _validate(lab, path)
    assert kind == "validation-failed", (
        f"{path}: Validate should report failing test cells on the untouched learner "
        f"notebook, got {kind}:\n{text[:3000]}")
    # one line per test cell, as make validate prints them, then the total; no cell's source
    assert re.search(r"FAIL\s+test_\w+ \([\d.]+ pt\)\s+not done yet", text), text[:3000]
    assert re.search(r"0 of \d+ test cells pass", text), text[:3000]
    assert '"""' not in text and "check_" not in text, f"the dialog shows a test cell's source:\n{text[:3000]}"
    assert "following cell failed" not in text, f"nbgrader's heading calls the summary a cell:\n{text}"


@pytest.mark.skipif(ASSIGNMENT is None, reason="no assignment released in notebooks/")
def test_validate_button_says_which_cells_pass_on_a_half_done_notebook(lab: Lab):
    import nbformat

    from grading.course import SOLUTIONS

    nb = nbformat.read(NOTEBOOKS / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    answers = {c.metadata["nbgrader"]["grade_id"]: c.source
               for c in nbformat.read(SOLUTIONS / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4).cells
               if c.metadata.get("nbgrader", {}).get("solution") and c.cell_type == "code"}
    first = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") in answers)
    first.source = answers[first.metadata["nbgrader"]["grade_id"]]  # the first exercise done, the rest not
    path = f"halfdone/{ASSIGNMENT}/{ASSIGNMENT}.ipynb"
    (lab.server.root / path).parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, lab.server.root / path)
    kind, text = _validate(lab, path)
    assert kind == "validation-failed", f"{path}: got {kind}:\n{text[:3000]}"
    assert re.search(r"PASS\s+test_\w+", text) and re.search(r"FAIL\s+test_\w+", text), text[:3000]


def test_assignment_list_opens_from_the_nbgrader_menu(lab: Lab):
    lab.open_menu_item("Nbgrader", "Assignment List")
    panel = lab.page.locator("#nbgrader-assignment-list")
    panel.wait_for(state="visible", timeout=60_000)
    for heading in ("Released assignments", "Downloaded assignments", "Submitted assignments"):
        assert panel.get_by_text(heading).count(), \
            f"the assignment list panel does not show {heading!r}:\n{panel.inner_text()[:2000]}"
    lab.page.wait_for_timeout(1000)  # let its lists finish loading for the picture
    lab.screenshot("nbgrader__assignment_list")
    lab.page.evaluate("() => window.jupyterapp.shell.currentWidget.close()")


def test_formgrader_opens_from_the_nbgrader_menu(lab: Lab):
    lab.open_menu_item("Nbgrader", "Formgrader")
    panel = lab.page.locator("#formgrader")
    panel.wait_for(state="visible", timeout=60_000)
    frame = lab.page.frame_locator("#formgrader iframe")
    frame.get_by_text("Manage Assignments").first.wait_for(timeout=60_000)
    table = frame.locator("body")
    for name in assignments():
        frame.get_by_text(re.compile(rf"^\s*{re.escape(name)}\s*$")).first.wait_for(
            timeout=30_000)
    lab.screenshot("nbgrader__formgrader")
    assert "error" not in table.inner_text()[:200].lower()
    # every column can be seen without scrolling: the table's last header lies inside the page
    # (a JupyterLab panel beside the file browser; labkit/server.py's lines in the stylesheet)
    last = frame.locator("table thead th").last
    seen = last.evaluate("""(th) => { const r = th.getBoundingClientRect();
        return [r.left, r.right, document.documentElement.clientWidth]; }""")
    assert 0 <= seen[0] and seen[1] <= seen[2] + 1, (
        f"the formgrader's last column ({last.inner_text()!r}) lies at {seen[0]:.0f}..{seen[1]:.0f} px, "
        f"outside its page's {seen[2]} px: cut off")
    lab.page.evaluate("() => window.jupyterapp.shell.currentWidget.close()")
