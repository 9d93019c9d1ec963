"""nbgrader preprocessors the course's batch grader adds (see grading/batch/autograde.py).

- ``RobustExecute``: nbgrader's Execute, but a kernel that dies (``os._exit``, a segfault)
  no longer fails the whole submission: the cell that killed it gets an error output, every
  later cell gets a "not run" error (so its tests score 0), and earlier cells keep their
  outputs and scores. Outputs are capped while they stream in: a cell that prints without
  end holds at most ``max_cell_output_chars`` in the grading process (a notebook at most
  ``max_notebook_output_chars``), with a note in the cell that the rest was cut.
  A kernel that cannot start, or cannot import the course's code, before any of the
  submission's cells ran is the grader's failure, not the student's: ``GraderFailure``.
- ``CapOutput``: caps the characters of every output (nbgrader's LimitOutput caps lines
  only, so one megabyte-long line would pass through).
- ``HideHiddenTests``: for feedback, replaces every hidden-test region of each test cell
  with a one-line note and rewrites tracebacks of those cells so the learner sees which
  hidden test failed and its exception's type and message (plain text), but not its code;
  no output of the notebook keeps a line that quotes hidden code.
- ``HideGraderPaths``: for feedback, the grading machine's paths (its Python environment,
  the course, the temporary folder) in outputs become ``<python>``, ``<course>``, ``<tmp>``.
"""

from __future__ import annotations

import os
import re

from nbclient.exceptions import DeadKernelError
from nbclient.util import run_sync
from nbformat.notebooknode import NotebookNode
from nbgrader.preprocessors import Execute, NbGraderPreprocessor
from traitlets import Bool, Integer, Unicode

from grading.trusted.kernels import use_ipc

_CUT_NOTE = ("\n... [output cut while the cell ran: more than {n:,} characters; "
             "the rest was not kept]\n")

# seconds a cell's last outputs may trail its reply (nbclient waits 4)
IOPUB_TIMEOUT = 30
BEGIN_HIDDEN = "BEGIN HIDDEN TESTS"
END_HIDDEN = "END HIDDEN TESTS"
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


class GraderFailure(RuntimeError):
    """The grader could not run a submission (no kernel, or the course's code not
    importable in it) before any of its cells ran: never a grade. The message names the
    cause; grading/batch/grade_worker.py tries once more, then reports it as the grader's.

    Each one raised is also recorded in ``FAILURES``, in this (the grading) process: the
    grade worker reads the record, never the text of nbgrader's log, which can quote what
    a submission printed or raised."""

    def __init__(self, message: str):
        super().__init__(message)
        FAILURES.append(message[:500])


FAILURES: list[str] = []   # GraderFailures raised in this process, oldest first


# what the learner's kernel imports, as the grader's own check, before any submitted cell
COURSE_IMPORT = "import labkit"


def _error(ename: str, evalue: str, lines: list[str] | None = None) -> NotebookNode:
    return NotebookNode(output_type="error", ename=ename, evalue=evalue,
                        traceback=lines or [f"{ename}: {evalue}"])


def _chars(x, budget: int) -> int:
    """Characters in an output's content (strings in dicts and lists), counted up to a
    little past ``budget``."""
    if isinstance(x, str):
        return len(x)
    n, stack = 0, [x]
    while stack and n <= budget:
        v = stack.pop()
        if isinstance(v, str):
            n += len(v)
        elif isinstance(v, dict):
            stack.extend(v.values())
            n += 8 * len(v)
        elif isinstance(v, (list, tuple)):
            stack.extend(v)
            n += 8 * len(v)
        else:
            n += 8
    return n


class RobustExecute(Execute):
    """nbgrader's Execute that survives a kernel dying mid-notebook and caps outputs
    while they stream in."""

    max_cell_output_chars = Integer(
        2_000_000, help="Characters of output kept per cell while it runs; the rest is "
                        "dropped as it arrives, with a note").tag(config=True)
    max_notebook_output_chars = Integer(
        32_000_000, help="Characters of output kept for the whole notebook").tag(config=True)
    # nbgrader raises when a cell's last outputs are not in 4 s after its reply (a thread of
    # the student's that keeps printing, a loaded grader), and then drops the whole
    # submission ungraded; the cell's reply is already in: go on to the next cell. Wait
    # longer than its 4 s first, though: on a loaded grader a cell's own print can trail its
    # reply by more, and was then dropped from the graded copy (only a cell whose kernel
    # never says it is idle costs the wait, once per cell)
    raise_on_iopub_timeout = Bool(False).tag(config=True)
    iopub_timeout = Integer(IOPUB_TIMEOUT).tag(config=True)

    def preprocess(self, nb, resources=None, km=None):
        self._kernel_died_at = None
        self._kept: dict[int, int] = {}   # characters kept so far, per cell index
        self._kept_total = 0
        self._cut: set[int] = set()
        self._started = False   # a kernel answered the grader's own import of the course
        try:
            return super().preprocess(nb, resources, km)
        except DeadKernelError as exc:
            if not self._started:
                raise GraderFailure(f"the learner's kernel died before any cell ran ({exc}); "
                                    "no submitted code had run") from None
            # The kernel died outside a cell (shutdown): mark what did not run.
            for cell in nb.cells:
                if cell.cell_type == "code" and cell.get("execution_count") is None:
                    cell.outputs.append(_error("KernelDied", "the kernel died before this "
                                               "cell ran; it was not run"))
            return nb, resources

    def create_kernel_manager(self):
        km = super().create_kernel_manager()
        if km.transport == "tcp":  # no port race: private IPC sockets (grading/trusted/kernels.py)
            use_ipc(km)
        return km

    async def async_start_new_kernel_client(self):
        try:
            kc = await super().async_start_new_kernel_client()
        except (RuntimeError, TimeoutError) as exc:  # e.g. died before replying to kernel_info
            raise GraderFailure(f"the learner's kernel did not start ({exc}); no submitted "
                                "code had run") from None
        seal = getattr(self.km, "seal", None)
        if seal is not None:  # the sandbox's sockets folder is the grader's from now on
            seal()
        await self._check_course_import(kc)
        self._started = True
        return kc

    async def _check_course_import(self, kc) -> None:
        """The course's code imports in the fresh kernel (it runs as the sandbox's uid, which
        a course folder closed to others locks out), before any submitted cell: else every
        test would fail for a reason that is not the student's."""
        try:
            reply = await kc.execute_interactive(COURSE_IMPORT, silent=True,
                                                 store_history=False, timeout=120,
                                                 output_hook=lambda msg: None)
        except TimeoutError:
            raise GraderFailure(f"'{COURSE_IMPORT}' did not finish within 120 s in the "
                                "learner's kernel; no submitted code had run") from None
        content = reply.get("content", {})
        if content.get("status") != "ok":
            raise GraderFailure(f"the learner's kernel cannot import the course's code "
                                f"({content.get('ename')}: {content.get('evalue')}); no "
                                "submitted code had run. Check that the sandbox can read labkit")

    def start_new_kernel_client(self):
        # nbclient's sync wrapper is bound to its own coroutine: dispatch to the override
        return run_sync(self.async_start_new_kernel_client)()

    def _room(self, cell_index: int) -> int:
        kept = getattr(self, "_kept", None)
        if kept is None:  # used without preprocess(): no budget kept
            self._kept, self._kept_total, self._cut = {}, 0, set()
        return max(0, min(self.max_cell_output_chars - self._kept.get(cell_index, 0),
                          self.max_notebook_output_chars - self._kept_total))

    def _charge(self, cell_index: int, n: int) -> None:
        self._kept[cell_index] = self._kept.get(cell_index, 0) + n
        self._kept_total += n

    def output(self, outs, msg, display_id, cell_index):
        """Keep an output only while the cell's (and the notebook's) budget lasts: the
        grading process never holds more than the cap of a flooding cell."""
        content = msg.get("content", {})
        kind = msg.get("msg_type")
        room = self._room(cell_index)
        if kind == "error":  # errors decide scores: always kept, each field capped
            content["evalue"] = str(content.get("evalue", ""))[:20_000]
            content["traceback"] = [str(t)[:20_000] for t in content.get("traceback", [])[:200]]
            return super().output(outs, msg, display_id, cell_index)
        size = _chars(content.get("text") if kind == "stream" else content.get("data"), room)
        size += 200  # every output costs something, however small
        if size <= room:
            before = len(outs)
            out = super().output(outs, msg, display_id, cell_index)
            if out is not None and len(outs) <= before:  # a delayed clear_output emptied it
                self._uncharge(cell_index)
            if out is not None:
                self._charge(cell_index, size)
            return out
        if cell_index not in self._cut:
            self._cut.add(cell_index)
            if kind == "stream" and room > 200:
                content["text"] = str(content.get("text", ""))[:room - 200]
                super().output(outs, msg, display_id, cell_index)
            self._charge(cell_index, room)
            cap = min(self.max_cell_output_chars, self.max_notebook_output_chars)
            outs.append(NotebookNode(output_type="stream", name="stderr",
                                     text=_CUT_NOTE.format(n=cap)))
        return None

    def _uncharge(self, cell_index: int) -> None:
        self._kept_total -= self._kept.pop(cell_index, 0)
        self._cut.discard(cell_index)

    def clear_output(self, outs, msg, cell_index):
        super().clear_output(outs, msg, cell_index)
        if not outs and not self.clear_before_next_output:
            self._room(cell_index)
            self._uncharge(cell_index)

    def handle_comm_msg(self, outs, msg, cell_index):
        """Widget messages count against the notebook's budget too."""
        size = _chars(msg.get("content", {}).get("data"), self.max_notebook_output_chars) + 200
        if size > self._room(cell_index):
            return None
        self._kept_total += size
        return super().handle_comm_msg(outs, msg, cell_index)

    def preprocess_cell(self, cell, resources, index):
        if cell.cell_type != "code":
            return cell, resources
        if self._kernel_died_at is not None:
            cell.outputs = [_error(
                "KernelDied", f"not run: the kernel died in an earlier cell ({self._kernel_died_at})")]
            return cell, resources
        try:
            return super().preprocess_cell(cell, resources, index)
        except DeadKernelError:
            self._kernel_died_at = f"code cell at position {index}"
            cell.outputs.append(_error(
                "KernelDied", "the kernel died while running this cell (os._exit, a segfault "
                "or running out of memory); later cells were not run"))
            return cell, resources


class CapOutput(NbGraderPreprocessor):
    """Cap every output of every cell at ``max_chars`` characters."""

    max_chars = Integer(20_000, help="Characters kept per output").tag(config=True)
    max_outputs = Integer(200, help="Outputs kept per cell").tag(config=True)

    def _cap(self, text: str) -> str:
        if len(text) <= self.max_chars:
            return text
        cut = len(text) - self.max_chars
        return text[: self.max_chars] + f"\n... [output capped: {cut} more characters]\n"

    def preprocess_cell(self, cell, resources, index):
        if cell.cell_type != "code":
            return cell, resources
        outputs = cell.get("outputs", [])
        if len(outputs) > self.max_outputs:
            errors = [o for o in outputs[self.max_outputs:] if o.get("output_type") == "error"]
            outputs = outputs[: self.max_outputs] + [NotebookNode(
                output_type="stream", name="stdout",
                text=f"... [{len(cell.outputs) - self.max_outputs} more outputs capped]\n")] + errors
        for out in outputs:
            if out.get("output_type") == "stream":
                text = out.get("text", "")
                out["text"] = self._cap("".join(text) if isinstance(text, list) else text)
            elif out.get("output_type") in ("execute_result", "display_data"):
                for mime, value in list(out.get("data", {}).items()):
                    if isinstance(value, list):
                        value = "".join(value)
                    if isinstance(value, str):
                        out["data"][mime] = self._cap(value)
            elif out.get("output_type") == "error":
                out["evalue"] = self._cap(out.get("evalue", ""))
                out["traceback"] = [self._cap(t) for t in out.get("traceback", [])[:200]]
        cell.outputs = outputs
        return cell, resources


def hidden_regions(source: str) -> list[tuple[int, int]]:
    """1-based (first, last) line numbers of every hidden-test region of a cell, markers
    included; a region left open runs to the cell's end."""
    regions, begin = [], None
    lines = source.splitlines()
    for i, ln in enumerate(lines):
        if begin is None and BEGIN_HIDDEN in ln:
            begin = i
        elif begin is not None and END_HIDDEN in ln:
            regions.append((begin + 1, i + 1))
            begin = None
    if begin is not None:
        regions.append((begin + 1, len(lines)))
    return regions


def hidden_region(source: str) -> tuple[int, int] | None:
    """1-based (first, last) line numbers of the first hidden-test region of a cell, or None."""
    regions = hidden_regions(source)
    return regions[0] if regions else None


def failing_line(traceback: list[str]) -> int | None:
    """The line of the cell itself where an error was raised (IPython's 'Cell In[n], line L')."""
    text = _ANSI.sub("", "\n".join(traceback))
    found = re.findall(r"(?:Cell In\s*\[\d*\]|<ipython-input-[^>]*>), line (\d+)", text)
    if found:
        return int(found[0])
    found = re.findall(r"^-+> ?(\d+)", text, flags=re.M)
    return int(found[0]) if found else None


_CONTROL = re.compile(r"\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b\[[0-?]*[ -/]*[@-~]|\x1b[@-Z\\-_]"
                      r"|[\x00-\x08\x0b-\x1f\x7f]")


def plain(text: str) -> str:
    """``text`` without terminal escapes and control characters (newlines and tabs kept)."""
    return _CONTROL.sub("", text)


class HideHiddenTests(NbGraderPreprocessor):
    """Feedback without hidden tests' code: a test cell's hidden regions become a one-line
    note each, and an error in such a cell shows which test failed, then the exception's
    type and message as plain text, never a line of the test's code; other outputs of the
    cell lose every line that quotes hidden code (a warning's source line)."""

    note = Unicode("# (hidden tests: {n} lines, not shown; failures are reported below)"
                   ).tag(config=True)

    def preprocess(self, nb, resources):
        # every line of hidden code (a helper of one cell can fail in another's traceback)
        # that shows nowhere else in the notebook
        self._secret, shown = set(), set()
        for cell in nb.cells:
            lines = cell.source.splitlines()
            inside = set()
            if cell.cell_type == "code" and cell.get("metadata", {}).get("nbgrader", {}).get("grade"):
                for first, last in hidden_regions(cell.source):
                    inside.update(range(first - 1, last))
            for i, ln in enumerate(lines):
                (self._secret if i in inside else shown).add(ln.strip())
        self._secret = {s for s in self._secret - shown if len(s) >= 6
                        and BEGIN_HIDDEN not in s and END_HIDDEN not in s}
        return super().preprocess(nb, resources)

    def preprocess_cell(self, cell, resources, index):
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if cell.cell_type != "code":
            return cell, resources
        secret = getattr(self, "_secret", set())
        regions = hidden_regions(cell.source) if meta.get("grade") else []
        if not regions:
            for out in cell.get("outputs", []):
                self._scrub(out, secret)
            return cell, resources
        lines = cell.source.splitlines()
        inside = set()
        for first, last in regions:
            inside.update(range(first, last + 1))
        # number the hidden tests: top-level statements inside the regions
        starts = [n for n in sorted(inside) if n <= len(lines) and (ln := lines[n - 1]).strip()
                  and not ln[0].isspace() and not ln.lstrip().startswith("#")
                  and not ln.lstrip().startswith((")", "]", "}"))]
        for out in cell.get("outputs", []):
            if out.get("output_type") != "error":
                self._scrub(out, secret)
                continue
            line = failing_line(out.get("traceback", []))
            message = plain(f"{out.get('ename', 'Error')}: {out.get('evalue', '')}").rstrip(": ")
            if line is not None and line in inside:
                number = sum(1 for s in starts if s <= line) or 1
                head = f"Hidden test {number} of {len(starts)} failed"
            elif line is not None and line <= len(lines):
                head = f"Visible test failed at line {line}: {lines[line - 1].strip()}"
            else:
                head = "A test in this cell failed"
            out["ename"], out["evalue"] = plain(str(out.get("ename", "Error"))), \
                plain(str(out.get("evalue", "")))
            out["traceback"] = [head, message]
            self._scrub(out, secret)
        shown, last_end = [], 0
        for first, last in regions:
            shown += lines[last_end:first - 1]
            n = last - first + 1 - (2 if last - first >= 1 else 0)
            shown.append(self.note.format(n=max(n, 0)))
            last_end = last
        cell.source = "\n".join(shown + lines[last_end:])
        return cell, resources

    @staticmethod
    def _scrub(out, secret: set[str]) -> None:
        def clean(text):
            if isinstance(text, list):
                text = "".join(text)
            if not isinstance(text, str):
                return text
            kept = [ln for ln in text.splitlines(keepends=True)
                    if not any(s in plain(ln) for s in secret)]
            return "".join(kept)

        if "text" in out:
            out["text"] = clean(out["text"])
        if out.get("output_type") == "error":
            out["evalue"] = clean(str(out.get("evalue", "")))
            out["traceback"] = [t for t in (clean(str(t)) for t in out.get("traceback", [])) if t]
        for mime, value in list(out.get("data", {}).items()):
            out["data"][mime] = clean(value)


def grader_paths() -> list[tuple[str, str]]:
    """(path, what the feedback shows instead) for the folders of the grading machine that
    its outputs name: the Python environment, the course's checkout and scratch course, the
    temporary folder's grading folders. Longest first."""
    import sys
    import tempfile
    from pathlib import Path

    found: dict[str, str] = {}
    for prefix in {sys.prefix, sys.base_prefix, sys.exec_prefix}:
        found[str(Path(prefix).resolve())] = "<python>"
        found[prefix] = "<python>"
    course = Path(__file__).resolve().parents[2]
    for root in filter(None, (str(course), os.environ.get("COURSE_ROOT"))):
        found[str(Path(root).resolve())] = "<course>"
        found[root] = "<course>"
    found[tempfile.gettempdir()] = "<tmp>"
    return sorted(((p.rstrip("/"), v) for p, v in found.items() if p.rstrip("/").count("/") >= 1
                   and len(p.rstrip("/")) > 1), key=lambda pv: -len(pv[0]))


class HideGraderPaths(NbGraderPreprocessor):
    """Feedback without the grading machine's paths: in every output (tracebacks included),
    the Python environment's folder becomes ``<python>``, the course's ``<course>`` and the
    temporary folder ``<tmp>``. The autograded notebook (the instructor's) keeps them."""

    def preprocess(self, nb, resources):
        self._paths = grader_paths()
        return super().preprocess(nb, resources)

    def _hide(self, text):
        if isinstance(text, list):
            text = "".join(text)
        if not isinstance(text, str):
            return text
        for path, shown in self._paths:
            text = re.sub(re.escape(path) + r"(?=[/\\'\"\s:,)\]>]|\x1b|$)", shown, text)
        return text

    def preprocess_cell(self, cell, resources, index):
        for out in cell.get("outputs", []) if cell.cell_type == "code" else []:
            if "text" in out:
                out["text"] = self._hide(out["text"])
            for mime, value in list(out.get("data", {}).items()):
                out["data"][mime] = self._hide(value)
            if out.get("output_type") == "error":
                out["evalue"] = self._hide(str(out.get("evalue", "")))
                out["traceback"] = [self._hide(str(t)) for t in out.get("traceback", [])]
        return cell, resources
