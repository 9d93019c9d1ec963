"""The one line a learner sees about a failed test cell, in `make validate` and in the Validate
button's dialog (nbgrader's Validator runs ``brief_errors`` on each cell error; the course's
nbgrader config and the hub students' config both install it, so it lives in labkit, which
every server has)."""

from __future__ import annotations


def _last_line(text: str) -> str:
    import re

    text = re.sub(r"\x1b\[[0-9;]*m", "", text)
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    return lines[-1] if lines else ""


NOT_DONE = "not done yet: a solution cell above still raises NotImplementedError"


def not_done_in_one_line(shell) -> None:
    """In an IPython ``shell``: a NotImplementedError without a message (an exercise's
    stub, still in place) shows as the one line ``NOT_DONE`` instead of a traceback. It stays an error (a test
    cell still fails, and scores 0 when graded); Run All goes on past test cells (their
    ``raises-exception`` tag), so a blank notebook shows one line per test not done yet."""
    def handler(self, etype, value, tb, tb_offset=None):
        if str(value):   # a library's NotImplementedError, with its reason: shown in full
            stb = self.InteractiveTB.structured_traceback(etype, value, tb, tb_offset=tb_offset)
        else:            # an exercise's stub: raise NotImplementedError()
            stb = [f"NotImplementedError: {NOT_DONE}"]
        self._showtraceback(etype, value, stb)
        return stb

    shell.set_custom_exc((NotImplementedError,), handler)


def failure_message(error: dict) -> str:
    """The one line said about a test cell's error output: not done yet, or the error's last line."""
    if error.get("ename") == "NotImplementedError":
        return NOT_DONE
    return f"{error.get('ename', 'Error')}: {_last_line(error.get('evalue', ''))}".rstrip(": ")


def brief_errors(cell=None, **_) -> None:
    """nbclient's on_cell_error hook for nbgrader's Validator (the Validate button and
    `nbgrader validate`): the traceback of a graded test cell's error becomes the line
    `make validate` prints, so a blank notebook shows "not done yet", not a traceback per cell."""
    from nbgrader.utils import is_grade

    if cell is None or cell.get("cell_type") != "code" or not is_grade(cell):
        return
    for output in cell.get("outputs", []):
        if output.get("output_type") == "error":
            output["traceback"] = [failure_message(output)]
