"""labkit: the small helper package every course notebook imports.

Import-light: ``import labkit`` loads no framework. Submodules (``labkit.devices``,
``labkit.timing``, ``labkit.workers``, ``labkit.data``, ``labkit.checks``,
``labkit.plots``, ``labkit.widgets``, ``labkit.validation``) are imported on first attribute
access.
"""

from __future__ import annotations

import importlib
import os

__all__ = [
    "checks",
    "data",
    "devices",
    "grading_mode",
    "plots",
    "timing",
    "validation",
    "widgets",
    "workers",
]

_SUBMODULES = {"checks", "data", "devices", "plots", "timing", "validation", "widgets", "workers"}


def grading_mode() -> bool:
    """True while nbgrader validates or autogrades (it sets ``NBGRADER_EXECUTION``)."""
    return bool(os.environ.get("NBGRADER_EXECUTION"))


def _in_ipython() -> None:
    """Where labkit is imported in an IPython kernel (a notebook), an exercise not done yet
    says so in one line (labkit.validation.not_done_in_one_line) and a test cell that passes
    says so in one line (passed_in_one_line); elsewhere nothing."""
    import sys

    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    if shell is not None and hasattr(shell, "set_custom_exc"):
        from labkit.validation import not_done_in_one_line, passed_in_one_line

        not_done_in_one_line(shell)
        passed_in_one_line(shell)


_in_ipython()


def __getattr__(name: str):
    if name in _SUBMODULES:
        module = importlib.import_module(f"{__name__}.{name}")
        globals()[name] = module
        return module
    raise AttributeError(f"module 'labkit' has no attribute {name!r}")
