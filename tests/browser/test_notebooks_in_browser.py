"""Every course notebook as a learner meets it: JupyterLab in headless Chromium.

For each notebook found in notebooks/ and solutions/ (no hand-listed names): Run All, wait
until the kernel is idle; solutions show no error, learner notebooks only the exercise
stubs' NotImplementedError in graded test cells (a demo that needs an unwritten exercise
says so in one line instead of a traceback) and JupyterLab's Run All alone, pressed once, runs
them to the last cell (every cell's request answered, none left unrun); every widget renders; at least
one widget changes what it shows when a control is moved. Screenshots of every notebook
and of every widget after it was moved go to test-artifacts/screenshots/.
"""

from __future__ import annotations

import pytest

from tests.browser.lab import Lab, NotebookRun, slug
from tests.browser.server import discover_notebooks, graded_test_cells, is_learner

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
    assert ran.stopped is None, (f"{ran.path}: JupyterLab's Run All alone stopped before cell "
                                 f"{ran.stopped['index']} ({ran.stopped['source']!r}); the code cell "
                                 f"above it showed {ran.stopped['above']}")


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


TAB10 = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
         "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"]  # matplotlib's C0..C9


def _colour_runs(png: bytes, tolerance: int = 12, min_px: int = 3, thick: int = 3) -> int:
    """The bars in the lowest row of bars of a picture (the timeline's back end). A pixel is a
    bar's if it and the pixels `thick` lines above and below have one tab10 colour (the grey
    of antialiased text and edges is not that thick); per line, runs of at least min_px such
    pixels, neighbouring runs of different colours (black edges and grid lines in between are
    skipped; neighbouring bars differ in colour); the most found on a line of the lowest band
    of at least 5 lines that show a bar."""
    import io

    from PIL import Image

    image = Image.open(io.BytesIO(png)).convert("RGB")
    palette = [tuple(int(c[i:i + 2], 16) for i in (1, 3, 5)) for c in TAB10]
    width, height = image.size
    pixels = image.load()

    def colour(x, y):
        r, g, b = pixels[x, y]
        return next((k for k, (pr, pg, pb) in enumerate(palette) if abs(r - pr) <= tolerance
                     and abs(g - pg) <= tolerance and abs(b - pb) <= tolerance), None)

    grid = [[colour(x, y) for x in range(width)] for y in range(height)]
    counts = []
    for y in range(height):
        runs = []                                   # [colour, length] of same-colour pixels
        for x in range(width):
            match = grid[y][x]
            if not (thick <= y < height - thick and grid[y - thick][x] == match == grid[y + thick][x]):
                match = None
            if runs and runs[-1][0] == match:
                runs[-1][1] += 1
            else:
                runs.append([match, 1])
        bars = [c for c, length in runs if c is not None and length >= min_px]
        counts.append(sum(1 for i, c in enumerate(bars) if i == 0 or c != bars[i - 1]))
    bands, band = [], []                            # runs of lines that show a bar
    for count in counts + [0]:
        if count:
            band.append(count)
        elif band:
            bands.append(band)
            band = []
    bands = [b for b in bands if len(b) >= 5]
    return max(bands[-1]) if bands else 0


def test_timeline_widget_draws_every_back_end_bar(lab: Lab):
    """01's timeline widget as JupyterLab shows it: the picture drawn for its default 8 ops
    holds 8 back-end bars (the issue: every other bar was zero wide, so 4 were seen)."""
    pytest.importorskip("mxnet")
    import nbformat

    from tests.browser.server import REPO

    source = REPO / "solutions" / "01_async_execution" / "01_async_execution.ipynb"
    nb = nbformat.read(source, as_version=4)
    upto = next(i for i, c in enumerate(nb.cells) if "timeline_widget = " in c.source)
    nb.cells = [c for c in nb.cells[: upto + 1] if c.cell_type == "code"]
    n_ops = 8
    assert f"value={n_ops}" in nb.cells[-1].source, "the widget's default number of ops changed"
    path = "solutions/01_async_execution/timeline_bars_check.ipynb"
    nbformat.write(nb, str(lab.server.root / path))
    try:
        lab.open(path)
        run = lab.run_all(path, timeout_s=240)
        assert run.timed_out is None, run.timed_out
        errors = [run.describe_error(c, e) for c in run.code_cells() for e in c.errors()]
        assert not errors, "\n".join(errors)
        assert not lab.wait_widgets_rendered(path)
        roots = lab.top_level_widgets(path)
        assert roots, "the timeline widget is not on screen"
        image = roots[0].locator("img").first
        image.wait_for(state="visible")
        lab.screenshot("01_timeline_bars", locator=image)
        bars = _colour_runs(image.screenshot())
        assert bars == n_ops, (f"the timeline shows {bars} coloured bars in a row for {n_ops} ops "
                               "(screenshot 01_timeline_bars.png in test-artifacts/screenshots/)")
    finally:
        lab.close(path)
