"""Check your answers in one notebook: which test cells pass, which fail, and why.

    make validate NB=01_async_execution          # your copy: work/01_async_execution/...
    make validate NB=path/to/any/notebook.ipynb

NB takes the forms make reset takes: a notebook's name (NN_topic, or NN_topic.ipynb) is
your working copy in work/ (made from notebooks/ if you have none yet); a path to an
existing .ipynb file is that file. The notebook is run top to bottom in a fresh kernel, as nbgrader runs it (with
NBGRADER_EXECUTION=validate); the file itself is never modified. Exit status: 0 when
every test cell passes, 1 when some fail, 2 when the notebook cannot be checked (make
validate itself fails only in that last case: failing tests are its normal report).

The Validate button in Jupyter (nbgrader's validate server extension) says the same thing
about each failed test cell: grading/nbgrader_config.py hands its Execute step
`brief_errors` (labkit/validation.py), which cuts a test cell's traceback to the line printed here.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from grading.course import read_json_notebook  # noqa: E402
from labkit.validation import (  # noqa: E402,F401
    NOT_DONE,
    brief_errors,
    failure_message,
    is_test_cell,
    report_lines,
    run_in_fresh_kernel,
    cell_outcomes,
)

USAGE = "usage: make validate NB=NN_topic (your copy in work/) or NB=path/to/notebook.ipynb"


def resolve(nb: str) -> Path:
    """The notebook ``nb`` names: an existing file, else the learner's working copy in work/
    of the notebook with that name (as make reset names it). FileNotFoundError otherwise."""
    from grading.course import REPO
    from grading.tools.workcopy import WORK, WorkError, _name, ensure

    path = Path(nb)
    if path.is_file() or path.suffix == ".ipynb" and len(path.parts) > 1:
        return path
    try:
        name = _name(nb)
    except WorkError:
        raise FileNotFoundError(nb) from None
    ensure(WORK, REPO / "notebooks")
    return WORK / name / f"{name}.ipynb"


def cell_results(nb) -> list[dict]:
    """One entry per graded test cell of an executed notebook: id, points, passed, message,
    and whether the learner edited the test cell (nbgrader's checksum)."""
    from nbgrader.utils import compute_checksum, is_solution

    cells = [c for c in nb.cells if is_test_cell(c)]
    results = cell_outcomes(nb)
    for cell, r in zip(cells, results):
        meta = cell.metadata["nbgrader"]
        r["edited"] = "checksum" in meta and not is_solution(cell) and compute_checksum(cell) != meta["checksum"]
    return results


def validate(path: Path, timeout: int = 120) -> int:
    """Run the notebook and print a pass/fail line per test cell; returns the exit status."""
    nb = read_json_notebook(path)
    if not any(c.metadata.get("nbgrader", {}).get("grade") for c in nb.cells):
        print(f"validate: {path} has no graded test cells: nothing to check")
        return 0
    print(f"Running {path} in a fresh kernel ...", flush=True)
    # labkit.validation.check, which Colab's learners run, shares this run and these lines
    run_in_fresh_kernel(nb, str(path.parent), timeout)
    results = cell_results(nb)
    print("\n".join(report_lines(results)))
    passed = [r for r in results if r["passed"]]
    return 0 if len(passed) == len(results) else 1


def main(argv: list[str]) -> int:
    if len(argv) != 1 or not argv[0].strip():
        print(f"validate: no notebook given; {USAGE}", file=sys.stderr)
        return 2
    path = Path(argv[0])
    try:
        path = resolve(argv[0])
        return validate(path)
    except FileNotFoundError:
        print(f"validate: {path} does not exist; {USAGE}", file=sys.stderr)
        return 2
    except ValueError as exc:
        print(f"validate: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
