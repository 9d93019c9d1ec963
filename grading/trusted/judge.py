"""Trusted grading: the learner's code runs in the sandbox, the verdict in a judge kernel.

``JudgedExecute`` replaces nbgrader's Execute preprocessor in ``make autograde``. It runs
every cell of a submission in order, but in two kernels:

- cells the learner may change (answers, given code, their own extra cells) run in the
  learner's kernel, inside the bubblewrap sandbox (grading/trusted/sandbox.py);
- graded test cells run in a **judge kernel**: an ordinary kernel outside the sandbox that
  never runs learner code. It runs the instructor's test cell (hidden tests included; they
  never enter the sandbox) where every name the instructor's answer cells define is a
  ``labkit.judge.handles.Remote``: calling it runs the learner's code in the sandbox and brings
  back plain data only. The instructor's given cells a test needs (imports, helpers,
  data) are run in the judge from the instructor's copy of the notebook, not the
  learner's.

Learner cells after the first test cell still run (a later answer may need them), but
from the first test call on nothing the learner's kernel sends is applied to the notebook:
no output, no update of an earlier output (``update_display_data``, a display reusing a
``display_id``, ``clear_output``), no widget message (``JudgedExecute.process_message``);
such a cell shows a one-line note instead. The learner's kernel has seen the tests'
arguments by then, and anything it wrote would carry hidden tests' inputs into the feedback.

So the checks, ``numpy.testing``, ``math.isclose``, builtins and IPython itself are the
judge's own: no transformer, patch, lying object or forged output in the learner's kernel
reaches them. nbgrader then scores the test cells from the judge's outputs, as usual.

One judge kernel serves the students of a grading process one after the other (a grading
worker, or one ``nbgrader autograde`` run): starting a kernel and importing torch is paid
once, not per submission. Between two students it is put back to the state it booted in
(``labkit.judge.reset.judge_reset``: namespace emptied, the course's modules imported afresh,
working folder, environment, random generators and torch's settings restored); a judge
whose reset fails, or that timed out or died, is shut down instead and the next student
gets a new one.

The judge runs outside every sandbox, so it has limits of its own: each judge kernel runs in
a cgroup of its own (``JUDGE_LIMITS``: memory, processes and threads, CPU cores; made by
grading/trusted/sandbox.py's ``Cgroup``) where the machine has cgroups, else under an address-space
rlimit (``judge_limits_note`` says which); its sockets serve only the sandbox's uid (told by
the grader in ``connect``, checked on every connection with SO_PEERCRED) and bound the
connections and bytes one student's code can make it hold (labkit/judge/session.py; the limits in
labkit/judge/wire.py).
"""

from __future__ import annotations

import ast
import atexit
import builtins
import json
import os
import shutil
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
from jupyter_core.utils import run_sync
from nbclient.exceptions import DeadKernelError
from traitlets import Unicode

from grading.trusted.kernels import IpcKernelManager
from grading.trusted.preprocessors import RobustExecute, _error
from grading.trusted.limits import Limits, _size, cgroup_parts
from grading.trusted.sandbox import Sandbox

BUILTINS = set(dir(builtins))
# What every judge imports while the learner's cells run, then notes as its fresh state.
JUDGE_BOOT = "import numpy, torch, labkit.judge.reset; labkit.judge.reset.judge_snapshot()"
RESET = "__import__('labkit.judge.reset', fromlist=['judge_reset']).judge_reset(get_ipython())"
_idle: dict[tuple, tuple] = {}   # one parked judge (kernel manager, folder) per kind
NOT_KEPT = ("[output not kept in the graded copy: this cell ran after tests had called your "
            "code; your own notebook shows it]\n")
# Where each graded notebook's time went, one JSON line per notebook, appended to the file
# this variable names (benchmarks/grading_throughput.py reads it); unset: nothing written.
TIMINGS_ENV = "COURSE_GRADING_TIMINGS"
# The judge kernel's own limits (per judge kernel, which serves one student at a time)
JUDGE_LIMITS = Limits(memory_bytes=8 << 30, processes=512, cpu_cores=2.0)


def judge_limits_note(limits: Limits = JUDGE_LIMITS) -> str:
    """One line: the limits each judge kernel gets on this machine and how (``make
    autograde`` prints it at start with the sandbox's)."""
    from labkit.judge import wire

    have, missing, why = cgroup_parts(limits)
    parts = [have + " per judge kernel"] if have else []
    if missing:
        parts.append(", ".join(missing) + " not set (" + (why or "no cgroups") + ")")
    if not have or "memory" not in have:
        parts.append(f"address space {_size(limits.memory_bytes)} (rlimit)")
    parts.append(f"its sockets: the sandbox's uid only, at most {wire.MAX_CONNECTIONS} "
                 f"connections, {wire.MAX_REQUEST_BYTES >> 20} MiB a call and "
                 f"{wire.MAX_BUFFERED_BYTES >> 20} MiB being read per student, idle ones "
                 f"closed after {wire.IDLE_SECONDS:g} s")
    return "judge limits: " + "; ".join(parts)


class JudgeKernelManager(IpcKernelManager):
    """The judge's kernel, under limits of its own (``JUDGE_LIMITS``): a cgroup of its own
    where the machine has them (grading/trusted/sandbox.py's, made and removed as a sandbox's, every
    process left in it killed), else an address-space rlimit. ``limits`` says which."""

    limits = ""

    async def _async_launch_kernel(self, kernel_cmd, **kw):
        box = self._limits_box = Sandbox(JUDGE_LIMITS)
        box.new_cgroup()
        cgroup = box.cgroup
        rlimit = cgroup is None or "memory" not in cgroup.set
        self.limits = ", ".join(
            ([f"cgroup v{cgroup.version} " + ", ".join(sorted(cgroup.set))] if cgroup else [])
            + (["rlimit address space"] if rlimit else []))

        def preexec() -> None:
            import resource

            if cgroup is not None:
                cgroup.enter()
            if rlimit:
                resource.setrlimit(resource.RLIMIT_AS, (JUDGE_LIMITS.memory_bytes,) * 2)

        kw["preexec_fn"] = preexec
        try:
            await super()._async_launch_kernel(kernel_cmd, **kw)
        except BaseException:
            box.drop_cgroup()
            raise

    async def _async_cleanup_resources(self, restart: bool = False) -> None:
        await super()._async_cleanup_resources(restart=restart)
        box = getattr(self, "_limits_box", None)
        if box is not None:
            box.drop_cgroup()

    cleanup_resources = _async_cleanup_resources


def _shutdown(km, folder: Path | None) -> None:
    try:
        run_sync(km.shutdown_kernel)(now=True)
    except Exception:  # noqa: BLE001 (a kernel that is already gone)
        process = getattr(getattr(km, "provisioner", None), "process", None)
        if process is not None and process.poll() is None:
            process.kill()
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)


@atexit.register
def _shutdown_idle() -> None:
    """When the grading process ends, so do its parked judges."""
    while _idle:
        _, (km, folder) = _idle.popitem()
        _shutdown(km, folder)


def _fill(folder: Path, files: Path) -> None:
    """``folder`` holding exactly the released assignment's regular non-notebook files."""
    for path in folder.iterdir():
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)
    if files.is_dir():
        for path in sorted(files.iterdir()):
            if path.is_file() and not path.is_symlink() and path.suffix != ".ipynb":
                shutil.copyfile(path, folder / path.name)


def _python(source: str) -> str:
    """A cell's source as Python (IPython magics and shell escapes turned into calls)."""
    from IPython.core.inputtransformer2 import TransformerManager

    return TransformerManager().transform_cell(source)


def bound_names(tree: ast.Module) -> set[str]:
    """Names a cell binds at module level (assignments, defs, imports, for/with/except)."""
    out: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
            return
        if isinstance(node, ast.Lambda):
            return
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            out.update((a.asname or a.name).split(".")[0] for a in node.names if a.name != "*")
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            out.add(node.id)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            out.add(node.name)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return out


def free_names(python: str) -> set[str]:
    """Names a cell reads from the notebook's globals and does not bind itself: module-level
    reads of names the cell never assigns, and globals read inside its functions, lambdas
    and comprehensions (their parameters and locals left out). Builtins left out."""
    import symtable

    try:
        top = symtable.symtable(python, "<cell>", "exec")
    except SyntaxError:
        return set()
    bound = {s.get_name() for s in top.get_symbols()
             if s.is_assigned() or s.is_imported() or s.is_namespace()}
    found = {s.get_name() for s in top.get_symbols() if s.is_referenced()} - bound

    def visit(table) -> None:
        for child in table.get_children():
            for sym in child.get_symbols():
                if sym.is_referenced() and sym.is_global() \
                        and not sym.is_declared_global():
                    found.add(sym.get_name())
            visit(child)

    visit(top)
    return (found - bound) - BUILTINS


@dataclass
class Plan:
    """What the judge needs from the instructor's copy of one notebook."""

    answer_names: set[str] = field(default_factory=set)
    tests: dict[str, str] = field(default_factory=dict)          # grade_id -> source
    needs: dict[str, list[str]] = field(default_factory=dict)    # grade_id -> given sources

    @classmethod
    def from_notebook(cls, path: Path) -> Plan:
        nb = nbformat.read(path, as_version=4)
        plan = cls()
        given: list[tuple[str, set[str], set[str]]] = []   # source, binds, reads
        for cell in nb.cells:
            if cell.cell_type != "code":
                continue
            meta = cell.metadata.get("nbgrader", {})
            python = _python(cell.source)
            try:
                tree = ast.parse(python)
            except SyntaxError:
                tree = None
            if meta.get("solution"):
                plan.answer_names |= bound_names(tree) if tree else set()
            elif meta.get("grade"):
                gid = meta["grade_id"]
                plan.tests[gid] = cell.source
                want = free_names(python)
                chosen: set[int] = set()
                while True:
                    want -= plan.answer_names
                    new = {i for i, (_, binds, _) in enumerate(given)
                           if i not in chosen and binds & want}
                    if not new:
                        break
                    chosen |= new
                    for i in new:
                        want |= given[i][2]
                plan.needs[gid] = [given[i][0] for i in sorted(chosen)]
            elif tree is not None:
                given.append((cell.source, bound_names(tree), free_names(python)))
        return plan


class JudgedExecute(RobustExecute):
    """nbgrader's Execute with test cells run by a judge kernel (see the module docstring)."""

    source_folder = Unicode("", config=True,
                            help="Folder of the instructor's notebooks of this assignment "
                                 "(default: <course>/solutions/<assignment>)")
    files_from = Unicode("", config=True,
                         help="Folder whose regular non-notebook files the kernels' working "
                              "folders get (default: <course>/notebooks/<assignment>)")
    sandbox = Unicode("auto", config=True,
                      help="Run the learner's kernel in grading/trusted/sandbox.py: on, off, or auto "
                           "(on where this machine can make a sandbox)")

    def preprocess(self, nb, resources=None, km=None):
        name = resources["nbgrader"]["notebook"]
        course = Path(os.environ.get("COURSE_ROOT") or Path(__file__).resolve().parents[2])
        assignment = resources["nbgrader"]["assignment"]
        self._source = Path(self.source_folder or course / "solutions" / assignment)
        self._files = Path(self.files_from or course / "notebooks" / assignment)
        self._plan = Plan.from_notebook(self._source / f"{name}.ipynb")
        self._judge = None
        self._judge_died_at: str | None = None   # the test cell the judge stopped in
        self._judge_ran: set[str] = set()
        self._tested = False   # a test cell has run: it may have called the learner's code
        self._withheld: set[int] = set()   # learner cells whose kernel messages were dropped
        self._judge_dir = None
        self._ran = 0
        self._seconds: dict[str, float] = {}
        start = time.perf_counter()
        try:
            if self._plan.tests:
                with self._clock("judge: start or reuse"):
                    self._launch_judge(nb)  # boots while the learner's cells run
            return super().preprocess(nb, resources, km)
        finally:
            with self._clock("judge: reset or stop"):
                self._stop_judge()
            self._seconds["total"] = time.perf_counter() - start
            self._write_timings(name)

    @contextmanager
    def _clock(self, phase: str):
        start = time.perf_counter()
        try:
            yield
        finally:
            self._seconds[phase] = self._seconds.get(phase, 0.0) + time.perf_counter() - start

    def _write_timings(self, name: str) -> None:
        path = os.environ.get(TIMINGS_ENV)
        if path:
            line = json.dumps({"notebook": name, "seconds": self._seconds}) + "\n"
            with open(path, "a", encoding="utf-8") as f:  # one short append: atomic
                f.write(line)

    def start_new_kernel(self, **kwargs):
        with self._clock("learner: kernel start"):
            return super().start_new_kernel(**kwargs)

    def start_new_kernel_client(self):
        with self._clock("learner: kernel ready"):
            return super().start_new_kernel_client()

    def preprocess_cell(self, cell, resources, index):
        gid = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        if cell.cell_type != "code" or gid not in self._plan.tests:
            alive = self._kernel_died_at is None
            with self._clock("learner: cells"):
                cell, resources = super().preprocess_cell(cell, resources, index)
            if self._tested and cell.cell_type == "code" and (
                    cell.get("outputs") or index in self._withheld):
                # whatever the learner's kernel saw of the tests' calls (their arguments)
                # could be printed here: nothing it outputs from now on is kept, but the
                # grader's own note that the kernel died in this cell
                ours = [o for o in cell.outputs if alive and self._kernel_died_at is not None
                        and o.get("output_type") == "error" and o.get("ename") == "KernelDied"]
                cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=NOT_KEPT),
                                *ours[-1:]]
        else:
            with self._clock("judge: test cells"), self._clock(f"test cell: {gid}"):
                cell, resources = self._judge_cell(cell, resources, index)
            self._tested = True
        # two kernels count their cells apart (1, 2, 3 and 1, 2): a cell that ran is
        # numbered in the order the notebook ran, so each prompt number shows once
        if cell.cell_type == "code" and cell.get("execution_count") is not None:
            self._ran += 1
            cell.execution_count = self._ran
            for output in cell.get("outputs", []):
                if output.get("output_type") == "execute_result":
                    output["execution_count"] = self._ran
        return cell, resources

    def process_message(self, msg, cell, cell_index):
        """The learner's kernel's messages (the judge is a client of its own). From the first
        test call on, only the ones that tell a cell's progress are read: every output,
        display update (nbclient applies one to each earlier output with its display_id),
        clear_output and widget message is dropped, whichever cell or thread sent it, so no
        output kept from before the tests changes and none is added."""
        if getattr(self, "_tested", False) and msg.get("msg_type") not in ("status",
                                                                           "execute_input"):
            self._withheld.add(cell_index)
            return None
        return super().process_message(msg, cell, cell_index)

    def _judge_cell(self, cell, resources, index):
        gid = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        cell.source = self._plan.tests[gid]
        cell.outputs = []
        if self._kernel_died_at is not None:
            cell.outputs = [_error("KernelDied", "not run: the kernel died in an earlier cell "
                                   f"({self._kernel_died_at})")]
            return cell, resources
        if self._judge_died_at is not None:
            cell.outputs = [_error("JudgeDied", "not run: the grader's judge stopped in an earlier test cell "
                                   f"({self._judge_died_at})")]
            return cell, resources
        if self._judge.kc is None:
            with self._clock("judge: connect (waits for its boot)"):
                self._connect_judge()
        try:
            for source in self._plan.needs.get(gid, []):
                if source not in self._judge_ran:
                    self._judge_ran.add(source)
                    scratch = nbformat.v4.new_code_cell(source)
                    self._judge.execute_cell(scratch, index, store_history=False)
            self._judge.execute_cell(cell, index, store_history=True)
        except DeadKernelError:
            # a test cell whose judge stopped has no error of its own, which nbgrader counts
            # as passed: it fails, and so does every later test cell (what the learner's code
            # returned to the tests can stop the judge, as a thread count it cannot start)
            self._judge_died_at = gid
            cell.outputs = [_error("JudgeDied", "the grader's judge stopped while this test cell ran, so the "
                                   "cell scores nothing; if your code did not cause it, tell your instructor")]
        return cell, resources

    def create_kernel_manager(self):
        """The learner's kernel: sandboxed (grading/trusted/sandbox.py) unless ``sandbox`` says off."""
        from grading.trusted import sandbox

        if self.sandbox == "on" or (self.sandbox == "auto" and sandbox.unavailable() is None):
            self.kernel_manager_class = sandbox.SandboxKernelManager
        km = super().create_kernel_manager()
        if isinstance(km, sandbox.SandboxKernelManager):
            km.files_from = str(self._files)
        return km

    def _launch_judge(self, nb) -> None:
        """A judge for this submission: the parked one of this kind when it is alive, else
        a new kernel (it boots while the learner's cells run)."""
        from nbclient import NotebookClient

        # judges of one kind are interchangeable (the configured kernel arguments are the
        # same for the whole process; nbclient only appends its history-file one)
        self._kind = (str(self._files), self.timeout)
        parked = _idle.pop(self._kind, None)
        if parked is not None and not run_sync(parked[0].is_alive)():
            _shutdown(*parked)
            parked = None
        self._judge_dir = parked[1] if parked else Path(tempfile.mkdtemp(prefix="judge-"))
        _fill(self._judge_dir, self._files)
        # nbclient's execute_cell stores the cell it ran at nb.cells[index]: the judge gets a
        # list of its own, so its boot and scratch cells never take a submission cell's place
        # (a test cell it runs is the submission's own object, filled in place)
        own = nbformat.from_dict({**nb, "cells": []})
        own.cells = list(nb.cells)
        judge = NotebookClient(
            own, timeout=self.timeout, interrupt_on_timeout=True, allow_errors=True,
            kernel_name="python3", kernel_manager_class=JudgeKernelManager,
            extra_arguments=[*self.extra_arguments, f"--IPKernelApp.exec_lines={JUDGE_BOOT}"],
            error_on_timeout=self.error_on_timeout,
            resources={"metadata": {"path": str(self._judge_dir)}},
            on_cell_executed=self.on_cell_executed, record_timing=False)
        if parked:
            judge.km = parked[0]
        else:
            judge.km = judge.create_kernel_manager()
            run_sync(judge.async_start_new_kernel)()
        self._judge = judge

    def _connect_judge(self) -> None:
        judge = self._judge
        run_sync(judge.async_start_new_kernel_client)()
        info = self.km.get_connection_info(session=False)
        info = {k: (v.decode() if isinstance(v, bytes) else v) for k, v in info.items()}
        provisioner = self.km.provisioner
        pid = provisioner.process.pid if provisioner and provisioner.process else 0
        if hasattr(self.km, "kernel_pid"):  # a forked sandbox: its PID 1, not the client
            pid = self.km.kernel_pid() or pid
        pgid = getattr(provisioner, "pgid", None) or pid
        # the uid the learner's kernel runs as: the only one the judge's sockets serve
        box = getattr(self.km, "sandbox", None)
        uid = box.uid if box is not None else os.getuid()
        record = getattr(box, "workers_record", None)
        names = sorted(self._plan.answer_names)
        tests = set(self._plan.tests)
        sources = [c.source for c in self.nb.cells if c.cell_type == "code"
                   and c.get("metadata", {}).get("nbgrader", {}).get("grade_id") not in tests]
        code = ("import json as __json, labkit.judge.session as __labkit_session\n"
                f"globals().update(__labkit_session.connect(__json.loads({json.dumps(info)!r}), "
                f"{names!r}, {pgid}, {pid}, {float(self.timeout or 120)}, "
                f"__json.loads({json.dumps(sources)!r}), uid={uid}, workers={str(record or '')!r}))")
        boot = nbformat.v4.new_code_cell(code)
        judge.execute_cell(boot, 0, store_history=False)
        errors = [o for o in boot.outputs if o.get("output_type") == "error"]
        if errors:
            raise RuntimeError("the judge could not reach the learner's kernel: "
                               f"{errors[0].get('ename')}: {errors[0].get('evalue')}")

    def _stop_judge(self) -> None:
        """Park the judge for the next student once it is back to its fresh state (a judge
        that never connected is still fresh); shut it down if that fails."""
        judge, self._judge = self._judge, None
        folder, self._judge_dir = self._judge_dir, None
        if judge is None:
            if folder is not None:
                shutil.rmtree(folder, ignore_errors=True)
            return
        fresh = judge.kc is None
        if judge.kc is not None:
            try:
                reply = run_sync(judge.kc.execute_interactive)(
                    RESET, store_history=False, timeout=60, output_hook=lambda msg: None)
                fresh = reply.get("content", {}).get("status") == "ok"
            except Exception:  # noqa: BLE001 (a judge that hangs or is gone: not reused)
                fresh = False
            try:
                judge.kc.stop_channels()
            except Exception:  # noqa: BLE001
                pass
        if fresh and self._kind not in _idle and run_sync(judge.km.is_alive)():
            _idle[self._kind] = (judge.km, folder)
        else:
            _shutdown(judge.km, folder)

