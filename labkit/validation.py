"""What a learner sees of a notebook's test cells: the one line about a failed test cell, and a
PASS/FAIL line per test cell (``report_lines``), in `make validate`, in ``check`` (the same
check without nbgrader, on Colab, which has no Validate button: ``labkit.validation.check()``
in a cell checks the open notebook) and in the Validate button's dialog (this module is also
what the button's server side reports, through labkit/server.py; nbgrader's
Validator runs ``brief_errors`` on each cell error; the course's nbgrader config and the hub
students' config both install it, so it lives in labkit, which every server has)."""

from __future__ import annotations

import re


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


def contract_line(source: str) -> str | None:
    """The first sentence of the docstring a test cell opens with (the contract it checks), or
    None for a cell that does not open with one (every other code cell of the course)."""
    text = source.lstrip()
    if not text.startswith('"""'):
        return None
    body = " ".join(text[3:].split('"""', 1)[0].split())
    first = re.match(r"(.+?[.!?])(?:\s|$)", body)
    line = first.group(1) if first else body
    return line if len(line) <= 160 else line[:157] + "..."


def passed_in_one_line(shell) -> None:
    """In an IPython ``shell``: a test cell (one that opens with its contract's docstring)
    that runs without an error ends with the one line ``passed: <its contract>``, so that
    passing is not silent."""
    if getattr(shell, "_labkit_says_passed", False):
        return

    def say(result) -> None:
        line = contract_line(getattr(getattr(result, "info", None), "raw_cell", "") or "")
        if line and result.success:
            print(f"\u2713 passed: {line}")

    shell.events.register("post_run_cell", say)
    shell._labkit_says_passed = True


def failure_message(error: dict) -> str:
    """The one line said about a test cell's error output: not done yet, or the error's last line."""
    if error.get("ename") == "NotImplementedError":
        return NOT_DONE
    return f"{error.get('ename', 'Error')}: {_last_line(error.get('evalue', ''))}".rstrip(": ")


def is_test_cell(cell) -> bool:
    """Whether ``cell`` is a graded code cell (nbgrader's ``grade`` flag), read without nbgrader."""
    return cell.get("cell_type") == "code" and bool(cell.get("metadata", {}).get("nbgrader", {}).get("grade"))


def cell_outcomes(nb) -> list[dict]:
    """One entry per graded test cell of an executed notebook: id, points, passed, message."""
    results = []
    for cell in nb["cells"]:
        if not is_test_cell(cell):
            continue
        meta = cell["metadata"]["nbgrader"]
        errors = [o for o in cell.get("outputs", []) if o.get("output_type") == "error"]
        results.append({"id": meta.get("grade_id", "?"), "points": meta.get("points", 0),
                        "passed": not errors, "message": failure_message(errors[0]) if errors else ""})
    return results


def run_in_fresh_kernel(nb, folder: str = ".", timeout: int = 120):
    """Run ``nb`` (a notebook node) top to bottom in a fresh kernel started in ``folder``, as
    nbgrader's Validate does (``NBGRADER_EXECUTION=validate``; errors kept, never raised);
    returns it executed. The kernel talks over Unix sockets in a private folder, not TCP."""
    import os
    import tempfile
    from pathlib import Path

    from jupyter_client.manager import KernelManager
    from nbclient import NotebookClient

    old = os.environ.get("NBGRADER_EXECUTION")
    os.environ["NBGRADER_EXECUTION"] = "validate"
    try:
        with tempfile.TemporaryDirectory(prefix="validate-kernel-") as sockets:
            km = KernelManager(kernel_name="python3", transport="ipc", ip=str(Path(sockets) / "kernel"))
            client = NotebookClient(nb, km=km, timeout=timeout, allow_errors=True, iopub_timeout=30,
                                    resources={"metadata": {"path": str(Path(folder).resolve())}})
            try:
                client.execute()
            finally:  # nbclient shuts down only kernels it started itself
                if km.has_kernel:
                    # killed, as the grader's kernels are: asked to shut down, ipykernel (7.4)
                    # may print a traceback as it ends
                    km.shutdown_kernel(now=True)
    finally:
        if old is None:
            os.environ.pop("NBGRADER_EXECUTION", None)
        else:
            os.environ["NBGRADER_EXECUTION"] = old
    return nb


def _open_colab_notebook():
    """The notebook open in this Colab session, as Colab's front end holds it."""
    import nbformat
    from google.colab import _message  # Colab's own bridge to its front end

    return nbformat.from_dict(_message.blocking_request("get_ipynb", timeout_sec=60)["ipynb"])


def check(path: str | None = None, timeout: int = 120) -> bool:
    """Validate without nbgrader: run a notebook (``path``, or on Colab the open one) in a
    fresh kernel and print PASS/FAIL per test cell, as `make validate` does;
    True when every test cell passes. Hidden tests run only when the work is graded."""
    import os

    import nbformat

    if path is None:
        import sys

        if "google.colab" not in sys.modules:
            raise ValueError("check() needs the notebook's path here, e.g. "
                             "check('01_async_execution.ipynb'); only on Colab does it find the open notebook")
        nb, folder = _open_colab_notebook(), os.getcwd()
    else:
        nb, folder = nbformat.read(path, as_version=4), os.path.dirname(os.path.abspath(path))
    if not any(is_test_cell(c) for c in nb.cells):
        print("no graded test cells: nothing to check")
        return True
    results = cell_outcomes(run_in_fresh_kernel(nb, folder, timeout))
    print("\n".join(report_lines(results)))
    return all(r["passed"] for r in results)


def report_lines(results: list[dict]) -> list[str]:
    """What `make validate`, ``check`` and the Validate button say about ``cell_outcomes``:
    a PASS or FAIL line per test cell (a failure with its one-line message), then the total."""
    lines = []
    for r in results:
        line = f"  {'PASS' if r['passed'] else 'FAIL'}  {r['id']} ({r['points']:g} pt)"
        lines.append(line + (f"  {r['message']}" if r["message"] else "")
                     + ("  [this test cell was edited: grading uses the original]" if r.get("edited") else ""))
    passed = [r for r in results if r["passed"]]
    lines.append(f"{len(passed)} of {len(results)} test cells pass ({sum(r['points'] for r in passed):g}/"
                 f"{sum(r['points'] for r in results):g} points). Hidden tests run only when your work is graded.")
    return lines


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


# ---- the Validate button ---------------------------------------------------------------------
# nbgrader's dialog shows, for a notebook that fails, each failed cell's source and error, and
# nothing about the cells that pass. Its Validator is kept (the checksums of cells a learner
# must not edit, the execution as grading runs it); what it reports on a failure is the
# course's: one entry whose text is every test cell's PASS or FAIL line, as `make validate`
# prints them, under the summary line in place of nbgrader's heading ("The following cell
# failed:", which would call the summary a cell; the dialog writes an entry's error as HTML, so
# a style scoped to the dialog's message hides it). A notebook whose test cells all pass keeps
# nbgrader's "Success!" dialog. labkit/server.py installs it.
_NO_HEADING = ("<style>#validation-message.validation-failed > div:not(.jp-RenderedText)"
               " { display: none; }</style>")


def course_validator():
    from nbgrader.validator import Validator

    class CourseValidator(Validator):
        """nbgrader's Validator, reporting a failure as a PASS/FAIL line per test cell."""

        def _preprocess(self, nb):
            self._executed = super()._preprocess(nb)
            return self._executed

        def validate(self, filename: str):
            import html

            results = super().validate(filename)
            executed = getattr(self, "_executed", None)
            if "failed" not in results or executed is None:
                return results
            lines = report_lines(cell_outcomes(executed))
            text = "\n".join(lines[:-1])
            results["failed"] = [{"source": lines[-1], "error": _NO_HEADING + html.escape(text),
                                  "raw_error": text}]
            return results

    return CourseValidator
