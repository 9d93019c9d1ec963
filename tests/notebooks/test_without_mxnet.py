"""Every notebook of the course where MXNet cannot be imported (most GPU machines today):
the course's grading gives each solution full marks and each untouched learner notebook
zero; the set-up cells say why MXNet is missing and only the stubs fail in the blanks.
Every point is earnable without MXNet (01's Exercise 1 has a PyTorch path: futures on
PyTorch's inter-op threads) and none is free.

Only the notebooks that can reach MXNet are graded (``WITH_MXNET``, in one nbgrader run);
a notebook that cannot reach it runs the same code with or without it. MXNet enters a
process only by ``import mxnet``: the notebook's code (solution and release) would name it,
or call a course function that imports it whatever its arguments (``reaches_mxnet``:
labkit/ and grading/ read statically; an import behind a test of an argument that names
MXNet, or after the PyTorch path has returned, needs an argument naming MXNet to run).
``test_notebooks_left_out_cannot_reach_mxnet`` shows that of every notebook left out."""

from __future__ import annotations

import ast
import functools
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from grading.course import NOTEBOOKS, REPO, SOLUTIONS, assignments, generate, nbgrader, scratch_course
from tests.harness import error_names

ALL = assignments()
# the notebooks graded without MXNet: those whose code can reach it (checked below)
WITH_MXNET = ("00_getting_started", "01_async_execution", "02_data_parallel")
# the course's own code a notebook's cells and tests can call
COURSE_CODE = tuple(sorted((REPO / "labkit").rglob("*.py")) + sorted((REPO / "grading").glob("*.py")))
# no_mxnet (tests/conftest.py): an 'mxnet' on PYTHONPATH whose import raises ImportError


def _names_mxnet(text: str) -> bool:
    return "mxnet" in text.lower()


def _called(node: ast.AST) -> str | None:
    f = node.func if isinstance(node, ast.Call) else None
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None


def _reached(node: ast.AST, reaching: set[str]) -> list[str]:
    """``import mxnet`` statements and calls of functions in ``reaching`` within ``node``."""
    found = []
    for n in ast.walk(node):
        if isinstance(n, ast.Import) and any(a.name.split(".")[0] == "mxnet" for a in n.names):
            found.append("import mxnet")
        elif isinstance(n, ast.ImportFrom) and (n.module or "").split(".")[0] == "mxnet":
            found.append("import mxnet")
        elif _called(n) in reaching:
            found.append(f"{_called(n)}()")
    return found


def _ungated(body: list, reaching: set[str], gated: bool = False) -> list[str]:
    """What in the statements ``body`` reaches MXNet whatever the function's arguments: an
    ``import mxnet`` or a call of a function in ``reaching``, neither inside an ``if`` whose
    test names MXNet ("mxnet", or the "mx..." tags of MXNet objects sent across) nor after
    an ``if`` on "torch" whose branch returns (the PyTorch path). Functions and classes
    defined inside are read on their own (a call of one by name counts)."""
    found = []
    for stmt in body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        if isinstance(stmt, ast.If):
            test = ast.unparse(stmt.test).lower()
            found += [] if gated else _reached(stmt.test, reaching)
            found += _ungated(stmt.body, reaching, gated or "mx" in test)
            found += _ungated(stmt.orelse, reaching, gated)
            if "torch" in test and stmt.body and isinstance(stmt.body[-1], ast.Return):
                gated = True
            continue
        if gated:
            continue
        if not any(isinstance(v, list) and v and isinstance(v[0], (ast.stmt, ast.excepthandler))
                   for _, v in ast.iter_fields(stmt)):
            found += _reached(stmt, reaching)  # a simple statement
            continue
        for name, value in ast.iter_fields(stmt):  # a compound one: its parts, its bodies
            if name == "handlers":
                for handler in value:
                    found += _reached(handler.type, reaching) if handler.type else []
                    found += _ungated(handler.body, reaching, gated)
            elif isinstance(value, list) and value and isinstance(value[0], ast.stmt):
                found += _ungated(value, reaching, gated)
            elif isinstance(value, ast.AST):
                found += _reached(value, reaching)
            elif isinstance(value, list):
                for v in value:
                    found += _reached(v, reaching) if isinstance(v, ast.AST) else []
    return found


@functools.cache
def reaches_mxnet(files: tuple[Path, ...] = COURSE_CODE) -> dict[str, str]:
    """The functions of the course's code that import MXNet whatever their arguments, by
    name, each with what it reaches it by (read statically, to a fixed point)."""
    functions = []
    for path in files:
        source = path.read_text()
        tree = ast.parse(source)
        # a module that imports MXNet when imported: named by its own name
        functions.append(ast.FunctionDef(name=path.stem, body=tree.body))
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                functions.append(node)
    reaching: dict[str, str] = {}
    while True:
        new = {}
        for fn in functions:
            if fn.name not in reaching:
                found = _ungated(fn.body, set(reaching))
                if found:
                    new[fn.name] = found[0]
        if not new:
            return reaching
        reaching.update(new)


def _cells_code(assignment: str) -> str:
    """All code a notebook hands its kernels: the code cells of the solution and of the
    release, and any Python file beside them."""
    parts = []
    for folder in (SOLUTIONS / assignment, NOTEBOOKS / assignment):
        nb = nbformat.read(folder / f"{assignment}.ipynb", as_version=4)
        parts += [c.source for c in nb.cells if c.cell_type == "code"]
        parts += [p.read_text() for p in sorted(folder.rglob("*.py"))]
    return "\n".join(parts)


def test_shim_hides_mxnet(no_mxnet):
    proc = subprocess.run([sys.executable, "-c", "import mxnet"], capture_output=True, text=True)
    assert proc.returncode != 0 and "mxnet made unimportable" in proc.stderr, proc.stderr[-500:]


def test_the_reading_finds_the_ways_in():
    """The static reading finds what imports MXNet whatever its arguments (so a notebook
    calling it would be graded), and leaves out what needs an argument naming MXNet."""
    reaching = reaches_mxnet()
    assert {"mxnet_status", "has_mxnet", "require_mxnet", "print_report"} <= set(reaching), reaching
    assert not {"try_gpu", "all_devices", "num_gpus", "digits", "batches", "sync_for",
                "check_close"} & set(reaching), reaching


def test_notebooks_left_out_cannot_reach_mxnet():
    assert set(WITH_MXNET) <= set(ALL), f"WITH_MXNET names notebooks not in solutions/: {WITH_MXNET}"
    reaching = reaches_mxnet()
    for a in sorted(set(ALL) - set(WITH_MXNET)):
        code = _cells_code(a)
        calls = sorted(set(re.findall(r"\b\w+\b", code)) & set(reaching))
        assert not _names_mxnet(code) and not calls, (
            f"{a}'s code names MXNet or calls {calls} (course functions that import it: "
            f"{ {c: reaching[c] for c in calls} }), so it may behave differently without "
            f"MXNet: add it to WITH_MXNET in tests/notebooks/test_without_mxnet.py")


@pytest.mark.slow
def test_notebooks_that_reach_mxnet_grade_full_and_zero_without_it(no_mxnet, tmp_path):
    root = scratch_course(tmp_path, list(WITH_MXNET))
    db_url = f"sqlite:///{root / 'grading' / 'gradebook.db'}"
    for a in WITH_MXNET:
        released = generate(a, root, db_url=db_url)
        notebooks = {"solution": nbformat.read(SOLUTIONS / a / f"{a}.ipynb", as_version=4),
                     "blank": nbformat.read(released / f"{a}.ipynb", as_version=4)}
        for student, nb in notebooks.items():
            dest = root / "grading" / "submitted" / student / a
            shutil.copytree(released, dest)
            nbformat.write(nb, str(dest / f"{a}.ipynb"))
    # The learner's kernel outside the sandbox: the sandbox passes no PYTHONPATH, so inside
    # it the shim would hide MXNet from the judge only; every assignment in one run ("*").
    proc = nbgrader("autograde", "*", "--force", "--JudgedExecute.sandbox=off", root=root,
                    db_url=db_url, timeout=3000, check=False)
    log = (proc.stdout + proc.stderr)[-3000:]

    from nbgrader.api import Gradebook, MissingEntry

    problems = []
    with Gradebook(db_url) as gb:
        for a in WITH_MXNET:
            for student in ("solution", "blank"):
                try:
                    sn = gb.find_submission_notebook(a, a, student)
                except MissingEntry:
                    problems.append(f"{a}: {student} was not graded")
                    continue
                for g in sn.grades:
                    expected = 0 if student == "blank" else g.max_score
                    if g.score != expected:
                        problems.append(f"{a} {student}: {g.name} scored {g.score} of "
                                        f"{g.max_score}, expected {expected}")
    assert not problems, "\n".join(problems) + f"\n{log}"

    for a in WITH_MXNET:
        for student in ("solution", "blank"):
            nb = nbformat.read(root / "grading" / "autograded" / student / a / f"{a}.ipynb",
                               as_version=4)
            gid = {i: c.metadata.get("nbgrader", {}).get("grade_id") for i, c in enumerate(nb.cells)}
            allowed = {"NotImplementedError"} if student == "blank" else set()
            errors = [(i, gid[i], name, msg[:200]) for i, name, msg in error_names(nb)
                      if name not in allowed]
            assert not errors, f"{a} {student} without MXNet: (cell, grade id, error, message) {errors}"
            text = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code"
                           for o in c.get("outputs", []))
            if "mxnet_status" in "".join(c.source for c in nb.cells):  # its set-up says why
                assert "mxnet made unimportable" in text, (
                    f"{a} {student}: no cell says MXNet is missing; did the shim reach the kernel?")
