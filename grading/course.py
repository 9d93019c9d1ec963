"""The course layout and nbgrader, driven from Python: used by the Make verbs and the tests."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat

REPO = Path(__file__).resolve().parent.parent
SOLUTIONS = REPO / "solutions"
NOTEBOOKS = REPO / "notebooks"
CONFIG_DIR = REPO / "grading"
KEPT_METADATA = ("kernelspec", "language_info", "nbgrader")
# What an assignment folder may hold that is not the course: caches of JupyterLab, Python
# and Hypothesis (which writes .hypothesis/ where a notebook that draws examples runs).
# Never released, collected or graded; grading/hub/student/nbgrader_config.py lists them too.
CACHES = (".ipynb_checkpoints", "__pycache__", "*.pyc", ".hypothesis")
# nbgrader's course id and folders, relative to the course root (grading/nbgrader_config.py;
# benchmarks/grading_throughput.py gives plain nbgrader the same layout)
LAYOUT = {"course_id": "fast-dl", "source_directory": "solutions",
          "release_directory": "notebooks", "submitted_directory": "grading/submitted",
          "autograded_directory": "grading/autograded", "feedback_directory": "grading/feedback"}


def assignments(solutions: Path = SOLUTIONS) -> list[str]:
    """Names of the assignments in ``solutions/`` (folders NN_topic holding NN_topic.ipynb)."""
    return sorted(
        p.name for p in solutions.iterdir()
        if p.is_dir() and (p / f"{p.name}.ipynb").is_file()
    )


def nbgrader(*args: str, root: Path = REPO, db_url: str | None = None,
             env: dict | None = None, timeout: float | None = None,
             check: bool = True, config_dir: Path = CONFIG_DIR) -> subprocess.CompletedProcess:
    """Run ``nbgrader ARGS`` on the course rooted at ``root`` with the course's config (or
    the nbgrader_config.py in ``config_dir``)."""
    full_env = dict(os.environ)
    full_env.update(env or {})
    full_env["COURSE_ROOT"] = str(root)
    full_env["JUPYTER_CONFIG_PATH"] = str(config_dir)
    # nbgrader runs 'alembic' and starts kernels: both must come from this environment.
    full_env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), full_env.get("PATH", "")])
    if db_url:
        full_env["COURSE_DB_URL"] = db_url
    else:
        full_env.pop("COURSE_DB_URL", None)
    proc = subprocess.run(
        [sys.executable, "-m", "nbgrader", *args],
        cwd=root, env=full_env, capture_output=True, text=True, timeout=timeout,
    )
    if check and proc.returncode != 0:
        raise RuntimeError(
            f"nbgrader {' '.join(args)} failed (exit {proc.returncode}):\n"
            f"{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
        )
    return proc


def clean_notebook(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Strip outputs, execution counts and all metadata but kernelspec, language_info, nbgrader."""
    nb.metadata = {k: v for k, v in nb.metadata.items() if k in KEPT_METADATA}
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
        cell.metadata = {k: v for k, v in cell.metadata.items()
                         if k in ("nbgrader", "deletable", "editable")}
    return nb


def write_notebook(nb: nbformat.NotebookNode, path: Path) -> None:
    """Write a notebook atomically: a crash never leaves a half-written file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(nbformat.writes(nb) + "\n")
    os.replace(tmp, path)


def scratch_course(workdir: Path, names: list[str]) -> Path:
    """A scratch course under ``workdir`` holding copies of the given solutions."""
    for name in names:
        shutil.copytree(SOLUTIONS / name, workdir / "solutions" / name,
                        ignore=shutil.ignore_patterns(*CACHES))
    (workdir / "grading").mkdir(parents=True, exist_ok=True)
    return workdir


# JupyterLab's and nbclient's cell tag: Run All goes on past this cell's error
RUN_PAST = "raises-exception"


def run_past_tests(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Every test cell tagged ``RUN_PAST``: Run All on a learner's notebook runs every cell,
    a test whose exercise is not done yet shows its error and the run goes on (it stopped at
    the first test cell of every blank notebook). Grading is unchanged: an error still
    scores the cell 0."""
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type == "code" and meta.get("grade") and not meta.get("solution"):
            cell.metadata["tags"] = [RUN_PAST]
    return nb


def generate(name: str, root: Path, db_url: str | None = None) -> Path:
    """``nbgrader generate_assignment`` for one assignment; returns the released folder."""
    nbgrader("generate_assignment", name, "--force", root=root, db_url=db_url)
    out = root / "notebooks" / name
    for path in out.glob("*.ipynb"):
        write_notebook(run_past_tests(clean_notebook(nbformat.read(path, as_version=4))), path)
    return out


def read_json_notebook(path: Path) -> nbformat.NotebookNode:
    """Read a notebook, raising ValueError with one clear line when it is not one."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"{path}: no such file")
    if path.suffix != ".ipynb":
        raise ValueError(f"{path}: not a notebook (expected a .ipynb file)")
    try:
        text = path.read_text(encoding="utf-8")
        json.loads(text)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path}: not valid JSON ({exc}); restore it from notebooks/ "
                         "or your last checkpoint") from None
    try:
        nb = nbformat.reads(text, as_version=4)
        nbformat.validate(nb)
    except Exception as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ValueError(f"{path}: JSON but not a valid notebook ({first})") from None
    return nb


def notebook_namespace(assignment: str, *, until: str | None = None,
                       containing: tuple[str, ...] = (), grade_ids: tuple[str, ...] = ()) -> dict:
    """Run some of a solution's code cells in this process and return their namespace.

    Test cells never run. With ``until``, every other code cell runs in order up to and
    including the first whose source contains ``until``; with ``containing``, only the cells
    whose source contains one of those strings. The solution cells named in ``grade_ids``
    run last, in that order (if they have not run already).
    """
    path = SOLUTIONS / assignment / f"{assignment}.ipynb"
    cells = [c for c in nbformat.read(path, as_version=4).cells
             if c.cell_type == "code" and not c.metadata.get("nbgrader", {}).get("grade")]
    chosen = []
    if until is not None:
        for cell in cells:
            chosen.append(cell)
            if until in cell.source:
                break
        else:
            raise ValueError(f"{assignment}: no code cell contains {until!r}")
    else:
        chosen = [c for c in cells if any(key in c.source for key in containing)]
    by_id = {c.metadata.get("nbgrader", {}).get("grade_id"): c for c in cells}
    for grade_id in grade_ids:
        if grade_id not in by_id:
            raise ValueError(f"{assignment}: no solution cell {grade_id!r}")
        if by_id[grade_id] not in chosen:
            chosen.append(by_id[grade_id])
    namespace: dict = {"__name__": f"notebook_{assignment}"}
    for cell in chosen:
        exec(compile(cell.source, f"{path.name}:{cell.get('id')}", "exec"), namespace)
    return namespace
