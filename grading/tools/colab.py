"""Colab's way into each notebook: an "Open in Colab" badge under the title and a first code
cell that installs labkit from the course's repository when, and only when, it runs on Colab.

    python grading/tools/colab.py          # writes both into every notebook of solutions/
    make release                     # then into notebooks/

The repository is named in one place, ``[project.urls] Repository`` in pyproject.toml (a
placeholder until the course is published: change it there and run the two commands above).
Colab opens ``notebooks/`` of its ``main`` branch on GitHub.
"""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

import nbformat

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from grading.course import REPO, SOLUTIONS, assignments, write_notebook  # noqa: E402

BRANCH = "main"
CELL_ID = "colab-setup"
BADGE_IMAGE = "https://colab.research.google.com/assets/colab-badge.svg"
_BADGE_LINE = re.compile(r"^\[!\[Open In Colab\]\(.*\)\]\(.*\)$", re.M)


def repository() -> str:
    """The course's repository on GitHub, from pyproject.toml (``[project.urls] Repository``)."""
    url = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["urls"]["Repository"]
    if not re.fullmatch(r"https://github\.com/[\w.-]+/[\w.-]+", url):
        raise ValueError(f"pyproject.toml [project.urls] Repository must be https://github.com/"
                         f"OWNER/NAME (Colab opens notebooks from GitHub), got {url!r}")
    return url


def colab_url(assignment: str) -> str:
    """The link that opens ``notebooks/<assignment>`` of the course's repository in Colab."""
    path = repository().removeprefix("https://github.com/")
    return (f"https://colab.research.google.com/github/{path}/blob/{BRANCH}/"
            f"notebooks/{assignment}/{assignment}.ipynb")


def badge(assignment: str) -> str:
    """The badge line, as markdown."""
    return f"[![Open In Colab]({BADGE_IMAGE})]({colab_url(assignment)})"


def setup_cell_source() -> str:
    """The first code cell: on Colab, pip-installs labkit from the course's repository, without
    its pinned dependencies (Colab's PyTorch, NumPy and Jupyter stay) and with the two labkit
    needs that Colab may lack; anywhere else, nothing."""
    from packaging.requirements import Requirement

    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    pins = {Requirement(r).name: r for r in project["dependencies"]}
    extras = ", ".join(f'"{pins[name]}"' for name in ("hypothesis", "cloudpickle"))
    return (
        "# On Colab: install labkit, the course's helper package, from the course's repository\n"
        "# (--no-deps keeps Colab's own PyTorch and NumPy). Anywhere else this cell does nothing.\n"
        "import sys\n"
        "\n"
        'if "google.colab" in sys.modules:\n'
        "    import subprocess\n"
        "\n"
        f'    COURSE_REPOSITORY = "{repository()}"\n'
        '    pip = [sys.executable, "-m", "pip", "install", "--quiet"]\n'
        '    subprocess.run(pip + ["--no-deps", f"git+{COURSE_REPOSITORY}"], check=True)\n'
        f"    subprocess.run(pip + [{extras}], check=True)"
    )


def with_colab(nb: nbformat.NotebookNode, assignment: str) -> nbformat.NotebookNode:
    """``nb`` with the badge as the line under its H1 title and the set-up cell first among its
    code cells (both replaced where already there)."""
    title = nb.cells[0]
    lines = [ln for ln in title.source.split("\n") if not _BADGE_LINE.fullmatch(ln)]
    while len(lines) > 1 and not lines[1].strip():  # the blank lines under the title
        del lines[1]
    title.source = "\n".join([lines[0], "", badge(assignment), "", *lines[1:]])
    # by its id, or by its source where a rebuild renumbered it (nbbuild before it kept ids)
    nb.cells = [c for c in nb.cells if c.get("id") != CELL_ID
                and not (c.cell_type == "code" and c.source == setup_cell_source())]
    cell = nbformat.v4.new_code_cell(setup_cell_source())
    cell.id = CELL_ID
    nb.cells.insert(1, cell)
    return nb


def main() -> int:
    for name in assignments():
        path = SOLUTIONS / name / f"{name}.ipynb"
        nb = nbformat.read(path, as_version=4)
        before = nbformat.writes(nb)
        nb = with_colab(nb, name)
        if nbformat.writes(nb) != before:
            write_notebook(nb, path)
            print(f"updated {path.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
