"""No learner script in any staff or student view: a submission reduced to safe content.

A submission's markdown cells and its cells' outputs are the learner's to write
(``display(HTML(...))``, ``Javascript(...)``, a ``_repr_html_``, raw HTML in markdown). The
formgrader renders an autograded notebook and nbgrader's feedback renders it again, both
with nbconvert's HTMLExporter, and both of nbgrader's templates put rendered markdown into
the page without nbconvert's ``clean_html``. Learner HTML is cleaned after it is HTML, by
nh3 (the Rust sanitizer ammonia; it parses as a browser does, html5ever), never by reading
markdown or HTML with regular expressions. grading/nbgrader_config.py wires it in:

- ``SanitizeNotebook`` (at autograde time, on the notebook nbgrader stores, and again in
  every HTMLExporter the course's config builds) keeps only safe output types and cleans
  HTML outputs and raw cells;
- ``markdown2html``, the exporters' markdown filter, renders markdown as nbconvert does and
  cleans the HTML it becomes, in the formgrader's pages and in every feedback file;
- ``clean_html`` is nbconvert's ``clean_html`` filter (``sanitize_html`` on: outputs again).

The page around the learner's content (nbgrader's templates, nbconvert's CSS, the
formgrader's scripts, highlighted code, tracebacks coloured from escaped text) is the
grader's own and is not cleaned.

What it keeps: plain text, PNG/JPEG/GIF images (valid base64, numeric sizes), error
tracebacks, and HTML cut down to an allow-list of tags and attributes: tables, text
formatting, lists, headings, code blocks, links to http, https and mailto (and to the
submission's own headings), images from ``data:image/png|jpeg|gif`` only; classes only those
code highlighting and tables use; inline styles only colour, background colour, font weight,
style, family and size (at most 32px, or relative and not larger), text decoration and
alignment, vertical alignment, white space and padding (at most 2em). What it drops: every
other output type (JavaScript, widget views, SVG, markdown and LaTeX outputs, JSON), widget
state in the notebook's metadata, script, style, SVG and MathML elements with their content
(maths written as $TeX$ in markdown is typeset as MathML made here: ``with_mathml``),
forms, inputs, buttons, frames, objects, meta refreshes, event handlers, ids (headings keep
theirs under a ``learner-`` prefix), every other style property (position, z-index, size,
margins, transforms, backgrounds with images, ``url()``) and every link or image target with
another scheme or none (``javascript:``, ``data:`` links, ``vbscript:``, ``file:``, relative
paths). An output left with nothing to show says what was removed.
"""

from __future__ import annotations

import base64
import binascii
import html
import re

import nh3
from jinja2 import pass_context
from nbconvert.filters import strip_files_prefix
from nbconvert.preprocessors import Preprocessor
from nbformat.notebooknode import NotebookNode
from pygments.token import STANDARD_TYPES
from traitlets import Bool

TAGS = frozenset({
    "a", "abbr", "b", "blockquote", "br", "caption", "code", "col", "colgroup", "dd", "del",
    "details", "div", "dl", "dt", "em", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "i", "img",
    "ins", "kbd", "li", "ol", "p", "pre", "q", "s", "samp", "small", "span", "strong", "sub",
    "summary", "sup", "table", "tbody", "td", "tfoot", "th", "thead", "tr", "tt", "u", "ul",
    "var"})
# gone with everything inside them (the rest of the tags off the list go, their text stays)
DROP_WITH_CONTENT = frozenset({
    "script", "style", "template", "noscript", "xmp", "iframe", "object", "embed", "noembed",
    "noframes", "textarea", "title", "svg", "math", "select", "button", "form", "head"})
SAFE_MIMES = ("text/plain", "image/png", "image/jpeg", "image/gif")
LINK_SCHEMES = ("http", "https", "mailto")
IMAGE_DATA = re.compile(r"data:image/(png|jpeg|gif);base64,[A-Za-z0-9+/=\s]*\Z", re.I)
_LINK = re.compile(r"(https?|mailto):", re.I)
_STYLED = ("div", "span", "p", "table", "tr", "td", "th", "code", "pre")
_ATTRIBUTES = {
    **{tag: {"title"} for tag in TAGS},
    **{tag: {"title", "class", "style"} for tag in _STYLED},
    **{f"h{n}": {"title", "id"} for n in range(1, 7)},
    "a": {"title", "href", "class"},
    "img": {"title", "alt", "src", "width", "height"},
    "col": {"span", "width"}, "colgroup": {"span", "width"},
    "td": {"title", "class", "style", "colspan", "rowspan", "align"},
    "th": {"title", "class", "style", "colspan", "rowspan", "align"},
    "table": {"title", "class", "style", "align", "border"},
    "tr": {"title", "class", "style", "align"},
    "p": {"title", "class", "style", "align"},
    "div": {"title", "class", "style", "align"},
}
_NUMBERS = {"width": 2000, "height": 2000, "span": 100, "colspan": 100, "rowspan": 100,
            "border": 4}
# classes: those nbconvert's code highlighting (pygments) and tables put on learner HTML,
# none that the page's CSS places, sizes or shows (bootstrap's modal-backdrop, navbar-...)
CLASSES = frozenset({*STANDARD_TYPES.values(), "hll", "highlight", "anchor-link",
                     "dataframe"}) - {""}
_HIGHLIGHT_LANGUAGE = re.compile(r"hl-[a-z0-9_+-]{1,30}\Z")

# Inline styles: each property with the values it may take, bounded so that nothing a
# learner writes places, overlays, hides or loads anything, or grows without bound when
# nested (font sizes are absolute or shrink; padding adds up only in the page's flow)
_COLOUR = (r"#[0-9a-f]{3,4}|#[0-9a-f]{6}|#[0-9a-f]{8}|[a-z]{3,20}"
           r"|(rgb|rgba|hsl|hsla)\([0-9.%, ]{1,40}\)")
_FAMILY = r"""([a-z][a-z0-9 -]{0,30}|'[a-z0-9 -]{1,30}'|"[a-z0-9 -]{1,30}")"""
_LENGTH = re.compile(r"(\d{1,4}(?:\.\d{1,3})?|\.\d{1,3})(px|pt|em|rem|%)?\Z")
_LIMITS = {  # property kind -> unit -> largest value
    "font-size": {"px": 32, "pt": 24, "em": 1, "rem": 1, "%": 100},
    "padding": {"px": 32, "pt": 24, "em": 2, "rem": 2, "%": 0, "": 0},
}
_KEYWORDS = {
    "color": _COLOUR, "background-color": _COLOUR,
    "font-weight": r"normal|bold|bolder|lighter|[1-9]00",
    "font-style": r"normal|italic|oblique",
    "font-family": rf"{_FAMILY}(\s*,\s*{_FAMILY}){{0,4}}",
    "font-size": r"xx-small|x-small|small|medium|large|x-large|smaller",
    "text-decoration": r"none|((underline|overline|line-through)\s*){1,3}",
    "text-align": r"left|right|center|justify|start|end",
    "vertical-align": r"baseline|top|middle|bottom|sub|super|text-top|text-bottom",
    "white-space": r"normal|nowrap|pre|pre-wrap|pre-line",
}
CSS_PROPERTIES = frozenset({*_KEYWORDS, "padding", "padding-left", "padding-right",
                            "padding-top", "padding-bottom"})


def _length_ok(value: str, kind: str) -> bool:
    m = _LENGTH.match(value)
    if not m:
        return False
    limit = _LIMITS[kind].get(m.group(2) or "")
    return limit is not None and float(m.group(1)) <= limit


def _declaration_ok(prop: str, value: str) -> bool:
    if prop in _KEYWORDS and re.fullmatch(_KEYWORDS[prop], value):
        return True
    if prop == "font-size":
        return _length_ok(value, "font-size")
    if prop.startswith("padding"):
        parts = value.split()
        return 0 < len(parts) <= (4 if prop == "padding" else 1) \
            and all(_length_ok(p, "padding") for p in parts)
    return False


def clean_style(style: str) -> str | None:
    """``style`` cut to the properties and values above (the rest dropped), None if empty.
    Anything CSS could read other than plain keywords, numbers and colours (escapes,
    comments, ``url()``, ``!important``, ``expression()``) drops its declaration."""
    kept = []
    for declaration in style.split(";"):
        prop, sep, value = declaration.partition(":")
        prop, value = prop.strip().lower(), " ".join(value.split()).lower()
        if sep and re.fullmatch(r"[a-z0-9#%(),.'\" -]*", value) and "url(" not in value \
                and _declaration_ok(prop, value):
            kept.append(f"{prop}:{value}")
    return ";".join(kept) or None


def _classes(value: str) -> str | None:
    kept = [c for c in value.split() if c in CLASSES or _HIGHLIGHT_LANGUAGE.match(c)]
    return " ".join(kept) or None


def _attribute(tag: str, name: str, value: str) -> str | None:
    """nh3's attribute filter: the value kept (perhaps cut down), or None to drop it."""
    if name == "href":   # nh3 has already dropped every scheme but these and data:
        return value if _LINK.match(value) or value.startswith("#") else None
    if name == "src":
        return value if IMAGE_DATA.match(value) else None
    if name == "style":
        return clean_style(value)
    if name == "class":
        return _classes(value)
    if name in _NUMBERS:
        v = value.strip()
        return v if v.isdigit() and int(v) <= _NUMBERS[name] else None
    if name == "align":
        v = value.strip().lower()
        return v if v in ("left", "right", "center", "justify") else None
    return value


def _relative(url: str) -> str | None:
    """A link within the page goes to the learner's own (prefixed) heading; every other
    relative URL goes (nbconvert's strip_files_prefix would make ``files/javascript:...``
    a script link, and any path is a request in the viewer's session)."""
    if not url.startswith("#"):
        return None
    return "#learner-" + url[1:].removeprefix("learner-")


_cleaner = nh3.Cleaner(
    tags=set(TAGS), clean_content_tags=set(DROP_WITH_CONTENT),
    attributes={tag: set(names) for tag, names in _ATTRIBUTES.items()},
    attribute_filter=_attribute, strip_comments=True, link_rel="noopener noreferrer",
    url_schemes={*LINK_SCHEMES, "data"}, url_relative=_relative,
    filter_style_properties=set(CSS_PROPERTIES), id_prefix="learner-")


def clean_html(text: str) -> str:
    """HTML with only the allowed tags, attributes, classes and styles (module docstring)."""
    return _cleaner.clean(text)


# Maths. Rendered markdown keeps TeX between $ or $$ as text, for MathJax to typeset in the
# browser, which a feedback file opened on a hub without the internet never loads. The TeX is
# made MathML here instead (latex2mathml), after the learner's HTML is cleaned: no MathML
# element a learner writes survives the first pass, and the MathML made from the TeX is
# cleaned on its own allow-list (layout elements, no links, no annotation-xml, mglyph or
# malignmark) and once more with the page, so nothing reaches the page uncleaned.
MATHML_TAGS = frozenset({
    "math", "mrow", "mi", "mn", "mo", "ms", "mtext", "mspace", "mfrac", "msqrt", "mroot",
    "msub", "msup", "msubsup", "munder", "mover", "munderover", "mtable", "mtr", "mtd",
    "mstyle", "mpadded", "mphantom", "menclose"})
_MATHML_ATTRIBUTES = {
    "math": {"display"}, "mi": {"mathvariant"}, "mstyle": {"displaystyle", "scriptlevel"},
    "mo": {"stretchy", "fence", "separator", "form", "largeop", "movablelimits", "lspace",
           "rspace", "minsize", "maxsize"},
    "mfrac": {"linethickness"}, "mspace": {"width"}, "menclose": {"notation"},
    "mtable": {"columnalign", "rowspacing", "columnspacing"}, "mtd": {"columnalign"},
    "mpadded": {"width", "height", "depth", "lspace", "voffset"}}
_MATHML_VALUE = re.compile(r"[A-Za-z0-9 .%+-]{1,40}\Z")
_MATH = re.compile(r"\$\$(?P<block>[^$]+?)\$\$|(?<![\\$])\$(?P<inline>[^$\s](?:[^$]*?[^$\s])?)\$")
_TAG = re.compile(r"(<[^>]*>)")
_VERBATIM = ("code", "pre")


def _math_attribute(tag: str, name: str, value: str) -> str | None:
    if tag == "math" and name == "display":
        return value if value in ("block", "inline") else None
    return value if _MATHML_VALUE.match(value) else None


def _page_attribute(tag: str, name: str, value: str) -> str | None:
    return (_math_attribute if tag in MATHML_TAGS else _attribute)(tag, name, value)


_MATH_KWARGS = dict(clean_content_tags=set(DROP_WITH_CONTENT - {"math"}), strip_comments=True)
_math_cleaner = nh3.Cleaner(
    tags=set(MATHML_TAGS), attributes={t: set(a) for t, a in _MATHML_ATTRIBUTES.items()},
    attribute_filter=_math_attribute, url_schemes=set(), **_MATH_KWARGS)
_page_cleaner = nh3.Cleaner(
    tags=set(TAGS | MATHML_TAGS),
    attributes={**{tag: set(names) for tag, names in _ATTRIBUTES.items()},
                **{t: set(a) for t, a in _MATHML_ATTRIBUTES.items()}},
    attribute_filter=_page_attribute, link_rel="noopener noreferrer",
    url_schemes={*LINK_SCHEMES, "data"}, url_relative=_relative,
    filter_style_properties=set(CSS_PROPERTIES), **_MATH_KWARGS)


def _mathml(match: re.Match) -> str:
    from latex2mathml.converter import convert

    block = match.group("block") is not None
    tex = html.unescape(match.group("block") if block else match.group("inline"))
    try:
        made = convert(tex, display="block" if block else "inline")
    except Exception:  # noqa: BLE001 (TeX it cannot read stays as the learner wrote it)
        return match.group(0)
    return _math_cleaner.clean(made)


def with_mathml(text: str) -> str:
    """Cleaned HTML with each $TeX$ and $$TeX$$ outside code made MathML, cleaned again."""
    pieces, verbatim, changed = _TAG.split(text), 0, False
    for i, piece in enumerate(pieces):
        if i % 2:
            name = re.match(r"</?([A-Za-z0-9]+)", piece)
            if name and name.group(1).lower() in _VERBATIM:
                verbatim = max(0, verbatim + (-1 if piece.startswith("</") else 1))
        elif not verbatim and "$" in piece:
            pieces[i] = _MATH.sub(_mathml, piece)
            changed = changed or pieces[i] != piece
    return _page_cleaner.clean("".join(pieces)) if changed else text


_exporter = None


@pass_context
def markdown2html(context, source: str) -> str:
    """The exporters' markdown filter: markdown rendered as nbconvert renders it (attachments
    included), ``files/`` prefixes stripped, then the HTML cleaned. The templates'
    ``strip_files_prefix`` after it finds nothing left to change into a link."""
    global _exporter
    if _exporter is None:
        from nbconvert.exporters import HTMLExporter

        _exporter = HTMLExporter()
    return with_mathml(clean_html(strip_files_prefix(_exporter.markdown2html(context, source))))


def _text(value) -> str:
    return "".join(value) if isinstance(value, list) else str(value)


def _base64_image(value) -> str | None:
    text = re.sub(r"\s+", "", _text(value))
    try:
        base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return None
    return text


def clean_output(output: NotebookNode) -> NotebookNode:
    """One output reduced to safe types (see the module docstring)."""
    if output.get("output_type") not in ("display_data", "execute_result"):
        return output   # streams and errors: nbconvert escapes their text
    data, kept, dropped = output.get("data", {}), {}, []
    for mime, value in data.items():
        if mime == "text/plain":
            kept[mime] = _text(value)
        elif mime in ("image/png", "image/jpeg", "image/gif"):
            image = _base64_image(value)
            if image is not None:
                kept[mime] = image
            else:
                dropped.append(f"{mime} (not base64)")
        elif mime == "text/html":
            kept[mime] = clean_html(_text(value))
        else:
            dropped.append(mime)
    if not kept:
        kept["text/plain"] = f"[output removed by the grader: {', '.join(dropped) or 'empty'}]"
    output["data"] = kept
    meta = {}
    for mime, value in dict(output.get("metadata", {})).items():
        if mime in kept and mime.startswith("image/") and isinstance(value, dict):
            meta[mime] = {k: int(v) for k, v in value.items() if k in ("width", "height")
                          and str(v).strip().isdigit() and int(v) <= _NUMBERS[k]}
    output["metadata"] = NotebookNode(meta)
    return output


def sanitize_notebook(nb: NotebookNode) -> NotebookNode:
    """``nb`` (changed in place) with safe outputs, raw cells and attachments and no widget
    state. Markdown cells stay as the learner wrote them: they are cleaned once rendered
    (``markdown2html``), so every view of them needs the course's exporter config."""
    nb.metadata.pop("widgets", None)
    for cell in nb.cells:
        if cell.cell_type == "raw":
            cell.source = clean_html(_text(cell.source))
        elif cell.cell_type == "code":
            cell.outputs = [clean_output(o) for o in cell.get("outputs", [])]
        attachments = cell.get("attachments")
        if attachments:
            cell["attachments"] = {
                name: {m: img for m, v in bundle.items() if m in SAFE_MIMES[1:]
                       and (img := _base64_image(v)) is not None}
                for name, bundle in attachments.items()}
    return nb


class SanitizeNotebook(Preprocessor):
    """nbgrader/nbconvert preprocessor: ``sanitize_notebook`` on the whole notebook."""

    enabled = Bool(True, help="Sanitize (on unless turned off)").tag(config=True)

    def preprocess(self, nb, resources):
        return sanitize_notebook(nb), resources
