"""grading/sanitize.py: no learner script in the formgrader's pages or in feedback.

Each hostile case carries its own marker (PWN01, PWN02, ...). A rendered page is dangerous
for a case when its marker sits where a browser acts on it: in an attribute (an event
handler, a ``javascript:`` or ``data:`` URL, an iframe's ``srcdoc``, a meta refresh) or
inside a script or style element. Text the reader sees (an escaped tag) is not dangerous.
Every case is first shown dangerous in the page nbgrader renders from the raw notebook,
then safe once sanitized, in both of nbgrader's templates (formgrader and feedback).
"""

from __future__ import annotations

import base64
import copy
import io
from html.parser import HTMLParser
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from grading.sanitize import clean_html, clean_markdown, sanitize_notebook

REPO = Path(__file__).resolve().parent.parent


def js(marker: str) -> str:
    return f"document.title='{marker}'"


def png_b64() -> str:
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    fig = Figure(figsize=(1, 1))
    fig.add_subplot().plot([0, 1])
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    return base64.b64encode(buf.getvalue()).decode()


# markdown a learner writes (answer cells, their own cells, edited text)
MARKDOWN = {
    "PWN01": '<img src=x onerror="{js}">',
    "PWN02": "<script>{js}</script>",
    "PWN03": '<svg onload="{js}"></svg>',
    "PWN04": '<a href="javascript:{js}">click</a>',
    "PWN05": "[click](javascript:{js})",
    "PWN06": '<iframe srcdoc="<script>parent.{js}</script>"></iframe>',
    "PWN07": '<object data="javascript:{js}"></object>',
    "PWN08": '<meta http-equiv="refresh" content="0;url=javascript:{js}">',
    "PWN09": "<style>/* {js} */ body {{ display: none }}</style>",
    "PWN10": '<details open ontoggle="{js}">x</details>',
    "PWN11": "[click](java&#115;cript:{js})",
}


def rich(marker: str) -> list:
    """Outputs a learner's code can produce (display(HTML(...)), Javascript(...), a widget,
    a forged image), each carrying ``marker``."""
    return [
        new_output("display_data", {"text/html": f'<img src=x onerror="{js(marker + "a")}">',
                                    "text/plain": "<IPython.core.display.HTML object>"}),
        new_output("display_data", {"application/javascript": js(marker + "b")}),
        new_output("execute_result", {"text/html": f"<script>{js(marker + 'c')}</script>"},
                   execution_count=1),
        new_output("display_data", {"image/svg+xml": f'<svg onload="{js(marker + "d")}"/>'}),
        new_output("display_data", {"text/markdown": f'<img src=x onerror="{js(marker + "e")}">'}),
        new_output("display_data", {"image/png": f'x" onerror="{js(marker + "f")}'}),
        new_output("display_data", {"image/png": png_b64()},
                   metadata={"image/png": {"width": f'1 onload="{js(marker + "g")}"'}}),
        new_output("display_data", {
            "application/vnd.jupyter.widget-view+json": {"model_id": "m1", "version_major": 2,
                                                         "version_minor": 0},
            "text/html": f"<iframe src=\"javascript:{js(marker + 'h')}\"></iframe>"}),
    ]


RICH_MARKERS = [f"PWNR{x}" for x in "abcdefgh"]


def hostile_notebook() -> nbformat.NotebookNode:
    cells = [new_markdown_cell("# A submission")]
    cells += [new_markdown_cell(src.format(js=js(m))) for m, src in MARKDOWN.items()]
    cells.append(new_code_cell("show()", outputs=rich("PWNR"), execution_count=1))
    nb = new_notebook(cells=cells, metadata={"kernelspec": {"name": "python3",
                                                            "display_name": "Python 3",
                                                            "language": "python"}})
    nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {
        "state": {"m1": {"model_name": "HTMLModel", "state": {
            "value": f"<img src=x onerror=\"{js('PWNW')}\">"}}}, "version_major": 2,
        "version_minor": 0}}
    return nb


class Acting(HTMLParser):
    """Markers in places a browser acts on (see the module docstring)."""

    def __init__(self, markers):
        super().__init__(convert_charrefs=True)
        self.markers, self.found, self.inside = markers, set(), []

    def _note(self, text: str) -> None:
        self.found |= {m for m in self.markers if m in text}

    def handle_starttag(self, tag, attrs):
        for _name, value in attrs:
            self._note(value or "")
        if tag in ("script", "style"):
            self.inside.append(tag)

    def handle_endtag(self, tag):
        if self.inside and self.inside[-1] == tag:
            self.inside.pop()

    def handle_data(self, data):
        if self.inside:
            self._note(data)


def acting(page: str, markers) -> set[str]:
    parser = Acting(list(markers))
    parser.feed(page)
    return parser.found


ALL_MARKERS = [*MARKDOWN, *RICH_MARKERS, "PWNW"]


def render(nb, template: str, course_config: bool) -> str:
    """``nb`` as nbgrader renders it: the formgrader's submission page ('formgrade') or a
    feedback file ('feedback'), with the course's config or nbconvert's defaults."""
    from nbconvert.exporters import HTMLExporter
    from nbgrader.server_extensions.formgrader import handlers
    from traitlets.config import Config
    from traitlets.config.loader import PyFileConfigLoader

    cfg = Config()
    if course_config:
        cfg.merge(PyFileConfigLoader("nbgrader_config.py", path=str(REPO / "grading")).load_config())
    cfg.HTMLExporter.template_name = template
    cfg.HTMLExporter.extra_template_basedirs = [handlers.template_path]
    # as nbgrader's GenerateFeedback sets it (the feedback page inlines bootstrap's CSS)
    cfg.HTMLExporter.extra_template_paths = [str(Path(handlers.__file__).parent / "static" /
                                                 "node_modules" / "bootstrap" / "dist" / "css")]
    resources = {"assignment_id": "a", "notebook_id": "n", "submission_id": "s", "index": 0,
                 "total": 1, "base_url": "/", "student": "st", "last_name": "L",
                 "first_name": "F", "notebook_path": "n.ipynb",
                 "nbgrader": {"score": 0, "max_score": 1, "late_penalty": 0}}
    html, _ = HTMLExporter(config=cfg).from_notebook_node(copy.deepcopy(nb), resources=resources)
    return html


@pytest.mark.parametrize("template", ["formgrade", "feedback"])
def test_every_hostile_case_acts_in_the_raw_page(template):
    """The cases are real: nbgrader's own rendering, unsanitized, puts each one where it acts.
    Three act only elsewhere: nbgrader's (classic) templates put SVG in an <img> data URL
    (JupyterLab's nbconvert template inlines it), prefer a widget view to its HTML, and leave
    widget state to the widget manager's script."""
    page = render(hostile_notebook(), template, course_config=False)
    missing = set(ALL_MARKERS) - {"PWNRd", "PWNRh", "PWNW"} - acting(page, ALL_MARKERS)
    assert not missing, f"not dangerous before sanitizing: {sorted(missing)}"


@pytest.mark.parametrize("template", ["formgrade", "feedback"])
def test_sanitized_notebook_renders_nothing_that_acts(template):
    """What autograde stores (sanitize_notebook) is safe under nbconvert's defaults too."""
    nb = sanitize_notebook(hostile_notebook())
    page = render(nb, template, course_config=False)
    assert not acting(page, ALL_MARKERS)
    assert "widgets" not in nb.metadata


@pytest.mark.parametrize("template", ["formgrade", "feedback"])
def test_course_config_sanitizes_at_view_time(template):
    """A raw notebook (graded before sanitizing existed) rendered with the course's config:
    the formgrader and feedback exporters run the sanitizer themselves."""
    page = render(hostile_notebook(), template, course_config=True)
    assert not acting(page, ALL_MARKERS)


def test_outputs_reduced_to_safe_types():
    nb = sanitize_notebook(hostile_notebook())
    outs = nb.cells[-1].outputs
    kinds = [sorted(o.get("data", {})) for o in outs]
    assert kinds == [["text/html", "text/plain"], ["text/plain"], ["text/html"], ["text/plain"],
                     ["text/plain"], ["text/plain"], ["image/png"], ["text/html"]], kinds
    assert "application/javascript" in outs[1].data["text/plain"]   # says what it removed
    assert outs[6].metadata == {"image/png": {}}                      # forged width dropped
    assert outs[0].data["text/html"] == "<img>"


def test_honest_outputs_are_kept():
    """Plain text, PNG figures, tables, errors and the course widgets' static copies."""
    png = png_b64()
    table = ("<table class='dataframe'><thead><tr><th>rank</th></tr></thead>"
             "<tbody><tr><td style='font-family:monospace; white-space:nowrap; "
             "padding-right:1.5em'><span style='color:#1f77b4'>0</span></td></tr></tbody></table>")
    error = new_output("error", ename="ValueError", evalue="x < 0", traceback=["ValueError: x < 0"])
    outs = [new_output("stream", name="stdout", text="a < b & c\n"),
            new_output("execute_result", {"text/plain": "42"}, execution_count=2),
            new_output("display_data", {"image/png": png, "text/plain": "<Figure>"}),
            new_output("display_data", {"text/html": table, "text/plain": "table"}),
            error]
    md = "# Title\n\nSome *maths* $a < b$, `x > 0` & a [link](https://pytorch.org).\n> quote"
    nb = new_notebook(cells=[new_markdown_cell(md), new_code_cell("x", outputs=copy.deepcopy(outs))])
    got = sanitize_notebook(copy.deepcopy(nb))
    assert got.cells[0].source == md
    for before, after in zip(outs, got.cells[1].outputs):
        if "text/html" in before.get("data", {}):
            assert after.data["text/html"] == clean_html(table)
            assert "<table" in after.data["text/html"] and "color:#1f77b4" in after.data["text/html"]
            assert "white-space:nowrap" in after.data["text/html"]
        else:
            assert after == before
    page = render(got, "feedback", course_config=True)
    assert f"data:image/png;base64,{png}" in page and "<th>rank</th>" in page


def test_course_widgets_static_copies_are_kept():
    """labkit.widgets' static bundles (a PNG, an HTML view with coloured spans) survive."""
    widgets = pytest.importorskip("ipywidgets")
    from labkit.widgets import interactive_figure, interactive_html

    fig = interactive_figure(lambda f, n: f.add_subplot().plot(range(n)), n=widgets.IntSlider(3, 1, 5))
    html = interactive_html(lambda n: f"<p><span style='color:#d62728'>{n}</span></p>",
                            n=widgets.IntSlider(3, 1, 5))
    for widget in (fig, html):
        bundle = {k: v for k, v in widget._repr_mimebundle_().items() if k != "text/plain"}
        out = new_output("display_data", bundle)
        kept = sanitize_notebook(new_notebook(cells=[new_code_cell("w", outputs=[out])]))
        data = kept.cells[0].outputs[0].data
        if "image/png" in bundle:
            assert data["image/png"] == bundle["image/png"]
        if "text/html" in bundle:   # the same HTML, attributes written out by the sanitizer
            assert data["text/html"] == '<p><span style="color:#d62728;">3</span></p>'


@pytest.mark.parametrize("source,kept", [
    ("x <img src=x onerror=alert(1)> y", "x <img> y"),
    ("[a](javascript:alert(1))", "[a](#))"),
    ("[a](JaVaScRiPt&colon;alert(1))", "[a](#))"),
    ("![i](/api/contents/secret)", "![i](#)"),
    ("[r]: javascript:alert(1)", "[r]: #"),
    ("<script>fetch('/api')</script>", "&lt;script>fetch('/api')&lt;/script>"),
    ("[ok](https://example.org) and [rel](#section)", "[ok](https://example.org) and [rel](#section)"),
])
def test_markdown_cases(source, kept):
    assert clean_markdown(source) == kept
