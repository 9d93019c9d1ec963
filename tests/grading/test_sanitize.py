"""grading/trusted/sanitize.py: no learner script in the formgrader's pages or in feedback.

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
import re
from html.parser import HTMLParser
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from grading.trusted.sanitize import clean_html, markdown2html, sanitize_notebook

REPO = Path(__file__).resolve().parents[2]


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
        for name, value in attrs:
            if name != "title":   # shown as a tooltip, never acted on
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
    """What autograde stores (sanitize_notebook) has only safe outputs and no widget state,
    under nbconvert's defaults too. Its markdown stays as the learner wrote it: markdown is
    cleaned once rendered, by the course's config (the test below)."""
    nb = sanitize_notebook(hostile_notebook())
    page = render(nb, template, course_config=False)
    assert not acting(page, [*RICH_MARKERS, "PWNW"])
    assert "widgets" not in nb.metadata
    assert [c.source for c in nb.cells] == [c.source for c in hostile_notebook().cells]


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
            assert data["text/html"] == '<p><span style="color:#d62728">3</span></p>'


def md(source: str) -> str:
    """``source`` as the course's exporters render a markdown cell (cleaned after rendering)."""
    return markdown2html({}, source)


@pytest.mark.parametrize("source,html", [
    ("x <img src=x onerror=alert(1)> y", "<p>x <img> y</p>"),
    ("[a](javascript:alert(1))", '<p><a rel="noopener noreferrer">a</a></p>'),
    ("[a](JaVaScRiPt&colon;alert(1))", '<p><a rel="noopener noreferrer">a</a></p>'),
    ("![i](/api/contents/secret)", '<p><img alt="i"></p>'),
    ("[ok](https://example.org) [m](mailto:a@b.org)",
     '<p><a href="https://example.org" rel="noopener noreferrer">ok</a> '
     '<a href="mailto:a@b.org" rel="noopener noreferrer">m</a></p>'),
    ("<script>fetch('/api')</script>after", "after"),
])
def test_markdown_cleaned_after_rendering(source, html):
    assert md(source).strip() == html


def test_honest_markdown_is_kept():
    """Headings (their ids under a prefix, so none clashes with the page's), code blocks with
    their highlighting, tables, lists, emphasis, maths (as MathML)."""
    source = ("# Ring all-reduce\n\nSee [above](#Ring-all-reduce). *Each* rank **sends** "
              "$a < b$.\n\n```python\nimport torch\n```\n\n| rank | bytes |\n|---|---|\n"
              "| 0 | 8 |\n\n- one\n- two\n")
    html = md(source)
    assert '<h1 id="learner-Ring-all-reduce">' in html
    assert '<a href="#learner-Ring-all-reduce"' in html
    assert '<span class="kn">import</span>' in html and '<div class="highlight">' in html
    assert "<th>rank</th>" in html and "<td>8</td>" in html and "<li>one</li>" in html
    assert "<em>Each</em>" in html and "<strong>sends</strong>" in html
    assert '<math display="inline"><mrow><mi>a</mi><mo>&lt;</mo><mi>b</mi></mrow></math>' in html


def test_maths_become_mathml_that_needs_no_script():
    """$TeX$ and $$TeX$$ are typeset as MathML (a feedback file on a hub without the internet never
    loads MathJax, and showed them raw); TeX in code, a lone dollar and TeX it cannot read stay text."""
    html = md("The bubble is $\\frac{p-1}{m+p-1}$.\n\n$$2^{-23}$$\n\n`$x$` costs $5 and $6; $\\frac{$")
    assert '<math display="inline"><mrow><mfrac>' in html and "<mi>p</mi>" in html
    assert '<math display="block"><mrow><msup><mn>2</mn>' in html
    assert "<code>$x$</code>" in html and "costs $5 and $6" in html and "$\\frac{$" in html


@pytest.mark.parametrize("source", [
    "$\\href{javascript:alert('PWNM1')}{x}$",                      # a link made by the TeX
    "$\\text{<script>alert('PWNM2')</script>}$",                   # markup in TeX text
    "$$\\text{<img src=x onerror=alert('PWNM3')>}$$",
    "<math><mi><a href=\"javascript:alert('PWNM4')\">y</a></mi></math> $y$",  # the learner's MathML
    "<math><mtext><mglyph><style><img src=x onerror=alert('PWNM5')></style></mglyph></mtext></math>$z$",
])
def test_mathml_made_from_tex_carries_no_script(source):
    html = md(source)
    assert "<math" in html  # the $...$ beside it was typeset
    for bad in ("javascript", "<script", "onerror", "<a ", "<img", "<style", "mglyph", "href"):
        assert bad not in html, (bad, html)


# Forms that reached the formgrader's page and the feedback through the regex sanitizer
# (each fails on it): a script link (marker in its href) or styles that cover or imitate
# the page (marker in the element's title, which is kept).
LINKS = {
    "PWNL1": "> see [the notes][n]\n>\n> [n]: javascript:{js}",       # definition in a quote
    "PWNL2": "1. see [the notes][n]\n\n    [n]: javascript:{js}",      # ... in a list item
    "PWNL3": "[the [full] notes](javascript:{js})",                     # nested brackets
    "PWNL4": "[notes](files/javascript:{js})",          # strip_files_prefix makes it a script
    "PWNL5": "[![plot](data:image/png;base64,iVBORw0KGgo=)](javascript:{js})",  # image link
    "PWNL6": "[notes][a\\]b]\n\n[a\\]b]: javascript:{js}",  # escaped bracket in the label
}
STYLES = {
    "PWNS1": '<span title="PWNS1" style="font-size:900px;line-height:1">'
             '[&#9608;&#9608;](javascript:{js})</span>',
    # a fake 'session expired' screen over the page (negative margins, huge padding and type)
    "PWNS2": '<div title="PWNS2" style="background-color:#f5f5f5;color:#333;font-size:40px;'
             'text-align:center;padding:400px 0;margin-left:-3000px;margin-right:-3000px">'
             "Your session has expired. Please log in again.</div>",
    # the page's own CSS does it: bootstrap's backdrop is fixed, full-screen, z-index 1040
    "PWNS3": '<div title="PWNS3" class="modal-backdrop">Session expired</div>',
    # relative sizes compound when nested (2em x 12 = 4096 times the text)
    "PWNS4": '<span title="PWNS4" style="font-size:2em">' * 12 + "big" + "</span>" * 12,
}
# forms the regex sanitizer held too (the last one it left as an inert 'url([bad url])'),
# kept as cases
HELD = {
    "PWNH1": '<a href="jav&#x09;ascript:{js}">tab in the scheme</a>',
    "PWNH2": '<math><mtext><a href="javascript:{js}">m</a></mtext></math>'
             '<svg><a xlink:href="javascript:{js}"><text>s</text></a></svg>',
    "PWNH3": '<form><button formaction="javascript:{js}">b</button>'
             '<input type="image" formaction="javascript:{js}"></form>',
    "PWNH4": '<span title="PWNH4" style="background-color:url(https://example.org/{js});'
             'background-image:url(https://example.org/x.png);color:red">css url</span>',
}
COVER_OK = {"color", "background-color", "font-weight", "font-style", "font-family",
            "font-size", "text-decoration", "text-align", "vertical-align", "white-space",
            "padding", "padding-left", "padding-right", "padding-top", "padding-bottom"}


def covers(style: str) -> list[str]:
    """Declarations of ``style`` that could place, size, overlay or load anything: a
    property off the short list, ``url()``, type over 32px (or growing when nested),
    padding over 2em."""
    bad = []
    for declaration in filter(str.strip, style.split(";")):
        prop, _, value = (x.strip().lower() for x in declaration.partition(":"))
        sizes = [(float(n), u) for n, u in
                 re.findall(r"(-?[\d.]+)(px|pt|em|rem|%)?", value)]
        limit = ({"px": 32, "pt": 24, "em": 1, "rem": 1, "%": 100} if prop == "font-size"
                 else {"px": 32, "pt": 24, "em": 2, "rem": 2, "": 0})
        if prop not in COVER_OK or "url(" in value or (
                (prop == "font-size" or prop.startswith("padding"))
                and any(n < 0 or n > limit.get(u, -1) for n, u in sizes)):
            bad.append(declaration.strip())
    return bad


class Styled(HTMLParser):
    """Styles and classes of the elements whose title is a marker."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.found: dict[str, list[tuple[str, str]]] = {}

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if (a.get("title") or "").startswith("PWN"):
            self.found.setdefault(a["title"], []).append((a.get("style") or "",
                                                          a.get("class") or ""))


def covering(page: str) -> dict[str, list[str]]:
    """Marked elements with a style that covers (see ``covers``) or a class of the page's."""
    parser = Styled()
    parser.feed(page)
    out = {}
    for marker, elements in parser.found.items():
        bad = [b for style, classes in elements for b in covers(style)]
        bad += [c for _, classes in elements for c in classes.split() if c == "modal-backdrop"]
        if bad:
            out[marker] = bad
    return out


def attack_notebook(cases: dict) -> nbformat.NotebookNode:
    cells = [new_markdown_cell(src.format(js=js(m))) for m, src in cases.items()]
    return new_notebook(cells=cells, metadata={"kernelspec": {
        "name": "python3", "display_name": "Python 3", "language": "python"}})


@pytest.mark.parametrize("template", ["formgrade", "feedback"])
@pytest.mark.parametrize("marker", [*LINKS, *STYLES, *HELD])
def test_attack_forms_are_harmless_in_the_page(template, marker):
    """Each form alone in a submission's markdown, in the page the course's config renders:
    no script link, no style that covers or imitates the page. The raw page (nbgrader
    without the sanitizer) carries each one."""
    cases = {**LINKS, **STYLES, **HELD}
    nb = attack_notebook({marker: cases[marker]})
    raw = render(nb, template, course_config=False)
    assert acting(raw, [marker]) or covering(raw).get(marker), "not an attack"
    page = render(nb, template, course_config=True)
    assert not acting(page, [marker]), page
    assert not covering(page), covering(page)


@pytest.mark.parametrize("template", ["formgrade", "feedback"])
def test_a_feedback_page_typesets_the_notebooks_maths(template):
    """The pages the course's config renders carry the markdown's maths as MathML (they showed
    raw $$...$$ where MathJax could not load); nbconvert's defaults leave the TeX as text."""
    import nbformat

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(
        "Predicted bubble: $$\\frac{p-1}{m+p-1}$$")])
    assert "<mfrac>" in render(nb, template, course_config=True)
    assert "<mfrac>" not in render(nb, template, course_config=False)
