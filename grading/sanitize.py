"""No learner script in any staff or student view: a submission reduced to safe content.

A submission's markdown cells and its cells' outputs are the learner's to write
(``display(HTML(...))``, ``Javascript(...)``, a ``_repr_html_``, raw HTML in markdown). The
formgrader renders an autograded notebook and nbgrader's feedback renders it again, both
with nbconvert's HTMLExporter, and both of nbgrader's templates put markdown into the page
without nbconvert's ``clean_html``. ``SanitizeNotebook`` is the one place that makes a
notebook safe to render; grading/nbgrader_config.py runs it

- at autograde time, on the notebook nbgrader stores (so every later view starts safe), and
- in every HTMLExporter the course's config builds (the formgrader's submission pages and
  every feedback file), with nbconvert's own ``sanitize_html`` on as a second layer.

What it keeps: plain text, PNG/JPEG/GIF images (valid base64, numeric sizes), error
tracebacks (nbconvert escapes them), and HTML cut down to an allow-list of tags and
attributes (tables, text formatting, lists, links to http/https/mailto, images from
``data:image/png|jpeg|gif`` only), so honest tables and the course widgets' static copies
still show, with inline styles cut to colour, type and spacing. What it drops: every other output type (JavaScript, widget views, SVG,
markdown and LaTeX outputs, JSON), widget state in the notebook's metadata, style
elements and attributes, event handlers, frames, objects, forms and meta refreshes. An
output left with nothing to show says what was removed. Markdown keeps its text: HTML in
it that is not on the list is escaped (shown as text), and link or image targets with any
other scheme (``javascript:``, ``data:``, ``vbscript:``, ``file:``) become ``#``.
"""

from __future__ import annotations

import base64
import binascii
import html
import re

import bleach
from bleach.css_sanitizer import CSSSanitizer
from nbconvert.preprocessors import Preprocessor
from nbformat.notebooknode import NotebookNode
from traitlets import Bool

TAGS = frozenset({
    "a", "abbr", "b", "blockquote", "br", "caption", "code", "col", "colgroup", "dd", "del",
    "details", "div", "dl", "dt", "em", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "i", "img",
    "ins", "kbd", "li", "ol", "p", "pre", "q", "s", "samp", "small", "span", "strong", "sub",
    "summary", "sup", "table", "tbody", "td", "tfoot", "th", "thead", "tr", "tt", "u", "ul",
    "var"})
SAFE_MIMES = ("text/plain", "image/png", "image/jpeg", "image/gif")
LINK_SCHEMES = ("http", "https", "mailto")
IMAGE_DATA = re.compile(r"data:image/(png|jpeg|gif);base64,[A-Za-z0-9+/=\s]*\Z", re.I)
# inline styles keep colour, type and spacing (the course's widgets colour bit fields);
# nothing that places, hides, overlays or loads anything (position, display, url(), ...)
CSS_PROPERTIES = frozenset({
    "color", "background-color", "font-family", "font-size", "font-style", "font-weight",
    "white-space", "text-align", "vertical-align", "text-decoration", "letter-spacing",
    "padding", "padding-left", "padding-right", "padding-top", "padding-bottom",
    "margin-left", "margin-right", "border", "border-collapse", "border-bottom", "border-top",
    "border-left", "border-right"})
_SCHEME = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.\-]*):")
_CONTROL = re.compile(r"[\x00-\x20\x7f]+")
_TAGLIKE = re.compile(r"<[A-Za-z/!?]")
# markdown link and image targets: [text](target ...) and reference definitions [id]: target
_MD_INLINE = re.compile(r"(!?\[[^\]]*\]\(\s*)(<[^>]*>|[^\s)]+)")
_MD_REFDEF = re.compile(r"(?m)^( {0,3}\[[^\]]+\]:\s*)(<[^>]*>|\S+)")


def _scheme(url: str) -> str | None:
    """The scheme a browser would see in ``url`` (entities decoded, control characters and
    spaces dropped), lower case; None for a relative URL."""
    m = _SCHEME.match(_CONTROL.sub("", html.unescape(url)))
    return m.group(1).lower() if m else None


def safe_link(url: str) -> bool:
    """A link target that cannot run script: relative, or http, https, mailto."""
    scheme = _scheme(url)
    return scheme is None or scheme in LINK_SCHEMES


def safe_image_src(url: str) -> bool:
    """An image source that makes no request and runs nothing: inline PNG, JPEG or GIF."""
    return bool(IMAGE_DATA.match(_CONTROL.sub("", html.unescape(url))))


def _attribute(tag: str, name: str, value: str) -> bool:
    if name in ("title", "alt"):
        return True
    if tag == "a" and name == "href":
        return safe_link(value)
    if tag == "img" and name == "src":
        return safe_image_src(value)
    if tag in ("img", "col", "colgroup") and name in ("width", "height", "span"):
        return value.strip().isdigit()
    if tag in ("td", "th") and name in ("colspan", "rowspan"):
        return value.strip().isdigit()
    if tag in ("td", "th", "tr", "table", "p", "div") and name == "align":
        return value.strip().lower() in ("left", "right", "center", "justify")
    return tag in ("div", "span", "table", "td", "th", "tr", "p", "code", "pre") \
        and name in ("class", "style")


_css = CSSSanitizer(allowed_css_properties=CSS_PROPERTIES, allowed_svg_properties=())
_cleaner = bleach.Cleaner(tags=TAGS, attributes=_attribute, protocols=[*LINK_SCHEMES, "data"],
                          strip=True, strip_comments=True, css_sanitizer=_css)
_escaper = bleach.Cleaner(tags=TAGS, attributes=_attribute, protocols=[*LINK_SCHEMES, "data"],
                          strip=False, strip_comments=True, css_sanitizer=_css)
_DROP_WITH_CONTENT = re.compile(r"(?is)<(script|style|template|noscript|xmp|iframe|object|"
                                r"noembed|noframes|textarea|title)\b.*?(</\1\s*>|\Z)")


def clean_html(text: str) -> str:
    """HTML with only the allowed tags and attributes; script and style elements go with
    their content, other tags off the list go and their text stays."""
    return _cleaner.clean(_DROP_WITH_CONTENT.sub("", text))


def clean_markdown(source: str) -> str:
    """Markdown whose HTML is on the allow-list (the rest is escaped, so it shows as text)
    and whose link and image targets cannot run script or make a request. Markdown with
    neither is returned unchanged."""
    if _TAGLIKE.search(source):
        # the serializer escapes every '<', '>' and '&' in text; only '<' must stay escaped
        source = _escaper.clean(source).replace("&gt;", ">").replace("&amp;", "&")

    def inline(m: re.Match) -> str:
        target = m.group(2).strip("<>")
        ok = safe_image_src(target) if m.group(1).startswith("!") else safe_link(target)
        return m.group(0) if ok else m.group(1) + "#"

    def refdef(m: re.Match) -> str:
        return m.group(0) if safe_link(m.group(2).strip("<>")) else m.group(1) + "#"

    return _MD_REFDEF.sub(refdef, _MD_INLINE.sub(inline, source))


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
            meta[mime] = {k: int(v) for k, v in value.items()
                          if k in ("width", "height") and str(v).strip().isdigit()}
    output["metadata"] = NotebookNode(meta)
    return output


def sanitize_notebook(nb: NotebookNode) -> NotebookNode:
    """``nb`` (changed in place) with no content that runs script when rendered."""
    nb.metadata.pop("widgets", None)
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = clean_markdown(_text(cell.source))
        elif cell.cell_type == "raw":
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
