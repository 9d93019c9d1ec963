"""``make grade-demo``: a synthetic class of 00_getting_started, graded end to end.

Builds, from the solution and the learner version generated from it (never notebooks/
or a learner's working copy, which may hold answers), a class of submissions (the solution,
the untouched learner notebook, a partly right one, a broken file, an infinite loop, a
kernel that dies, a missing notebook, two tampering students), zips it the way an LMS would, and grades it with
grading/batch/autograde.py in a demo course under grading/reports/demo/ (git-ignored), so the
course's real gradebook is never touched. Prints where the feedback, CSVs and plot are.
"""

from __future__ import annotations

import argparse
import copy
import re
import shutil
import sys
import tempfile
import zipfile
from pathlib import Path

import nbformat

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from grading.batch import autograde as ag  # noqa: E402
from grading.course import REPO, SOLUTIONS  # noqa: E402
from grading.tools.workcopy import learner_version  # noqa: E402

ASSIGNMENT = "00_getting_started"
DEMO = REPO / "grading" / "reports" / "demo"


def _meta(cell) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {})


def _function_cells(nb) -> list[int]:
    return [i for i, c in enumerate(nb.cells) if _meta(c).get("solution")
            and c.cell_type == "code" and re.search(r"^def \w+\(", c.source, re.M)]


def _prefix_body(nb, index: int, code: str):
    nb = copy.deepcopy(nb)
    lines = nb.cells[index].source.splitlines()
    at = next(k for k, ln in enumerate(lines) if ln.startswith("def "))
    nb.cells[index].source = "\n".join(lines[: at + 1] + ["    " + ln for ln in code.splitlines()]
                                       + lines[at + 1:])
    return nb


def build_class(assignment: str = ASSIGNMENT) -> dict[str, bytes | None]:
    """File name in the LMS zip -> content; students are named after what they hand in."""
    sol = nbformat.read(SOLUTIONS / assignment / f"{assignment}.ipynb", as_version=4)
    with tempfile.TemporaryDirectory(prefix="demo-release-") as tmp:
        blank = nbformat.read(learner_version(SOLUTIONS, assignment, Path(tmp))
                              / f"{assignment}.ipynb", as_version=4)
    funcs = _function_cells(sol)
    partly = _prefix_body(sol, funcs[0], "return 0  # a wrong first answer")
    loop = _prefix_body(sol, funcs[-1], "while True:\n    pass")
    crash = copy.deepcopy(sol)
    crash.cells[funcs[-1]].source += "\nimport os\nos._exit(1)"
    noisy = _prefix_body(sol, funcs[0], "import warnings\nwarnings.warn('demo warning')")
    # two tampering students: ivy hunts for the instructor's solutions from a cell and
    # runs them over her blank answers; jay leaves a process behind to rewrite grades later
    ivy = copy.deepcopy(blank)
    ivy.cells[funcs[0]].source += "\n" + HUNT_SOLUTIONS
    jay = copy.deepcopy(sol)
    jay.cells[funcs[-1]].source += "\n" + LEAVE_A_PROCESS
    name = f"{assignment}.ipynb"
    return {
        f"ada_{name}": nbformat.writes(sol).encode(),
        f"ben_{name}": nbformat.writes(blank).encode(),
        f"cleo_{name}": nbformat.writes(partly).encode(),
        f"dev_{name}": b"{ this is not a notebook",
        f"eli_{name}": nbformat.writes(loop).encode(),
        f"fay_{name}": nbformat.writes(crash).encode(),
        f"gus_{name}": nbformat.writes(noisy).encode(),
        "hal_my_homework.ipynb": nbformat.writes(sol).encode(),  # renamed: not graded
        f"ivy_{name}": nbformat.writes(ivy).encode(),
        f"jay_{name}": nbformat.writes(jay).encode(),
    }


HUNT_SOLUTIONS = """
import glob, json, os
found = set()
for start in (os.getcwd(), "/", "/tmp", "/work", "/root", "/home"):
    here = start
    for _ in range(8):
        found.update(glob.glob(os.path.join(here, "solutions", "*", "*.ipynb")))
        here = os.path.dirname(here)
for path in found:
    for cell in json.load(open(path))["cells"]:
        if cell["cell_type"] == "code" and "def " in "".join(cell["source"]):
            exec("".join(cell["source"]))
print(f"instructor notebooks found: {len(found)}")
"""
LEAVE_A_PROCESS = """
import subprocess
subprocess.Popen(["sh", "-c", "sleep 600; echo 'rewrite the gradebook now'"], start_new_session=True)
"""


def main(argv: list[str]) -> int:
    argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0].replace("``", ""),
        epilog=f"Writes {DEMO} afresh (git-ignored); takes no options.").parse_args(argv)
    shutil.rmtree(DEMO, ignore_errors=True)
    (DEMO / "solutions").mkdir(parents=True)
    shutil.copytree(SOLUTIONS / ASSIGNMENT, DEMO / "solutions" / ASSIGNMENT)
    zpath = DEMO / "lms-export.zip"
    with zipfile.ZipFile(zpath, "w") as zf:
        for fname, data in build_class().items():
            zf.writestr(fname, data)
    print(f"demo class: {zpath} (ada: solution, ben: untouched, cleo: partly right, dev: not "
          "a notebook, eli: infinite loop, fay: kernel dies, gus: warnings, hal: renamed file, "
          "ivy: blank answers + runs the instructor's solutions if she can find them, jay: "
          "solution + leaves a process behind; both score what their honest work scores)")
    opts = ag.Options(ASSIGNMENT, zpath, DEMO, jobs=0, cell_timeout=20)
    out = ag.autograde(opts)
    ag.print_summary(opts, out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
