"""Every notebook of the course where MXNet cannot be imported (most GPU machines today):
the course's grading gives each solution full marks and each untouched learner notebook
zero, in one nbgrader run over all notebooks; the set-up cells say why MXNet is missing and
only the stubs fail in the blanks. Every point is earnable without MXNet (01's Exercise 1 has a
PyTorch path: futures on PyTorch's inter-op threads) and none is free."""

from __future__ import annotations

import shutil
import subprocess
import sys

import nbformat
import pytest

from grading.course import SOLUTIONS, assignments, generate, nbgrader, scratch_course
from tests.harness import error_names

ALL = assignments()
# no_mxnet (tests/conftest.py): an 'mxnet' on PYTHONPATH whose import raises ImportError


def test_shim_hides_mxnet(no_mxnet):
    proc = subprocess.run([sys.executable, "-c", "import mxnet"], capture_output=True, text=True)
    assert proc.returncode != 0 and "mxnet made unimportable" in proc.stderr, proc.stderr[-500:]


@pytest.mark.slow
def test_every_notebook_grades_full_and_zero_without_mxnet(no_mxnet, tmp_path):
    root = scratch_course(tmp_path, ALL)
    db_url = f"sqlite:///{root / 'grading' / 'gradebook.db'}"
    for a in ALL:
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
        for a in ALL:
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

    for a in ALL:
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
