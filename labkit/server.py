"""The course's Jupyter server extension (make's set-up enables it; it runs in the learner's and
the instructor's Jupyter server, never in grading): nbgrader's Validate button, reporting a
PASS/FAIL line per test cell (``labkit.validation.course_validator``)."""

from __future__ import annotations


def _jupyter_server_extension_points():
    return [{"module": "labkit.server"}]


def _load_jupyter_server_extension(serverapp) -> None:
    """nbgrader's validate handlers, with the course's Validator (enabled in place of
    nbgrader.server_extensions.validate_assignment)."""
    from nbgrader.server_extensions.validate_assignment import handlers as validate

    from labkit.validation import course_validator

    validate.Validator = course_validator()   # what nbgrader's validate handler instantiates
    validate.load_jupyter_server_extension(serverapp)
