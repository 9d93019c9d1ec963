"""The course's Jupyter server extension (make's set-up enables it; it runs in the learner's and
the instructor's Jupyter server, never in grading): nbgrader's Validate button, reporting a
PASS/FAIL line per test cell (``labkit.validation.course_validator``), and the formgrader's
stylesheet with the course's lines after nbgrader's, so that its tables fit a JupyterLab panel."""

from __future__ import annotations

# The formgrader's pages put a sidebar beside a table of 11 columns; in a JupyterLab panel
# beside the file browser (about 1,050 px at a 1,400 px window) the table's last columns were
# cut off. Below 1,400 px the sidebar's links go above the table, in one line, and the cells
# are padded less.
FORMGRADER_CSS = """
/* the course's lines (labkit/server.py): the formgrader fits a JupyterLab panel */
@media (max-width: 1399px) {
  body > .container-fluid > .row + .row > .col-md-2,
  body > .container-fluid > .row + .row > .col-md-10 { width: 100%; float: none; }
  body > .container-fluid > .row + .row .nav-stacked > li { display: inline-block; margin-top: 0; }
  body > .container-fluid > .row + .row .nav-stacked { margin-bottom: 1em; }
  .table > thead > tr > th, .table > tbody > tr > td, .table > tfoot > tr > td { padding: 6px 4px; }
}
"""


def _jupyter_server_extension_points():
    return [{"module": "labkit.server"}]


def _formgrader_stylesheet():
    from pathlib import Path

    from tornado import web

    class Stylesheet(web.RequestHandler):
        """nbgrader's formgrader stylesheet, then the course's lines (served at its URL: the
        course's extension loads before nbgrader's, so its handler is asked first)."""

        def get(self):
            from nbgrader.server_extensions.formgrader import handlers

            self.set_header("Content-Type", "text/css; charset=UTF-8")
            self.set_header("Cache-Control", "no-cache")
            self.write(Path(handlers.static_path, "css", "nbgrader.css").read_text())
            self.write(FORMGRADER_CSS)

    return Stylesheet


def _load_jupyter_server_extension(serverapp) -> None:
    """nbgrader's validate handlers, with the course's Validator (enabled in place of
    nbgrader.server_extensions.validate_assignment), and the formgrader's stylesheet."""
    from jupyter_server.utils import url_path_join
    from nbgrader.server_extensions.validate_assignment import handlers as validate

    from labkit.validation import course_validator

    validate.Validator = course_validator()   # what nbgrader's validate handler instantiates
    validate.load_jupyter_server_extension(serverapp)
    web_app = serverapp.web_app
    web_app.add_handlers(".*$", [(url_path_join(web_app.settings["base_url"],
                                                "formgrader/static/css/nbgrader.css"),
                                  _formgrader_stylesheet())])
