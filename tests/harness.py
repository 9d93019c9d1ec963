"""Round trips of course notebooks through nbgrader, shared by the notebook tests.

For one assignment: build a scratch course, ``nbgrader generate_assignment``, submit
the solution, the untouched learner notebook and every wrong-answer variant as
students, autograde them all in one nbgrader run, and read the gradebook.
"""

from __future__ import annotations

import copy
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from grading.course import SOLUTIONS, generate, nbgrader, notebook_namespace, scratch_course

__all__ = ["GradeRun", "Variant", "error_names", "grade_all", "inject", "load_variants",
           "notebook_namespace"]

VARIANTS = Path(__file__).resolve().parent / "variants"
BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"


@dataclass
class Variant:
    """Code that replaces the solution region of one cell: a plausible wrong answer, or
    (``full``) a correct answer written another way, which must score full marks."""

    assignment: str
    name: str
    cell: str
    loses: list[str]
    code: str
    region: int = 1
    full: bool = False

    @property
    def student(self) -> str:
        return f"{'right' if self.full else 'wrong'}-{self.name}"


@dataclass
class GradeRun:
    """Scores per student and cell, and the autograded notebooks, of one nbgrader run."""

    assignment: str
    root: Path
    scores: dict[str, dict[str, tuple[float, float]]] = field(default_factory=dict)
    log: str = ""

    def autograded(self, student: str) -> nbformat.NotebookNode:
        path = (self.root / "grading" / "autograded" / student / self.assignment
                / f"{self.assignment}.ipynb")
        return nbformat.read(path, as_version=4)

    def total(self, student: str) -> tuple[float, float]:
        cells = self.scores[student]
        return sum(s for s, _ in cells.values()), sum(m for _, m in cells.values())


def load_variants(assignment: str) -> list[Variant]:
    """The variants kept in tests/variants/<assignment>/*.py: wrong answers, and correct
    answers written another way (header ``# scores: full``)."""
    folder = VARIANTS / assignment
    found = []
    for path in sorted(folder.glob("*.py")) if folder.is_dir() else []:
        header, code_lines, cell, loses, region, full = True, [], None, [], 1, False
        for line in path.read_text().splitlines():
            m = re.match(r"^# (cell|loses|region|scores):\s*(.*)$", line) if header else None
            if m:
                if m.group(1) == "cell":
                    cell = m.group(2).strip()
                elif m.group(1) == "region":
                    region = int(m.group(2))
                elif m.group(1) == "scores":
                    if m.group(2).strip() != "full":
                        raise ValueError(f"{path}: '# scores:' takes only 'full' (a correct "
                                         f"answer written another way), got {m.group(2)!r}")
                    full = True
                else:
                    loses = m.group(2).split()
                continue
            header = False
            code_lines.append(line)
        if not cell:
            raise ValueError(f"{path}: first lines must include '# cell: <grade_id>'")
        if full and loses:
            raise ValueError(f"{path}: a '# scores: full' variant loses nothing; drop '# loses:'")
        code = "\n".join(code_lines).strip("\n")
        found.append(Variant(assignment, path.stem, cell, loses, code, region, full))
    return found


def inject(nb: nbformat.NotebookNode, variant: Variant) -> nbformat.NotebookNode:
    """A copy of ``nb`` with the variant's code in place of the named cell's solution region."""
    nb = copy.deepcopy(nb)
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("grade_id") != variant.cell:
            continue
        if not meta.get("solution"):
            raise ValueError(f"variant {variant.name}: cell {variant.cell} is not a solution cell")
        lines = cell.source.splitlines()
        starts = [i for i, ln in enumerate(lines) if ln.strip() == BEGIN]
        ends = [i for i, ln in enumerate(lines) if ln.strip() == END]
        if len(starts) != len(ends) or not 1 <= variant.region <= len(starts):
            raise ValueError(f"variant {variant.name}: cell {variant.cell} has {len(starts)} "
                             f"solution regions; '# region: {variant.region}' names none of them")
        start, end = starts[variant.region - 1], ends[variant.region - 1]
        indent = lines[start][: len(lines[start]) - len(lines[start].lstrip())]
        body = [(indent + ln) if ln.strip() else "" for ln in variant.code.splitlines()]
        cell.source = "\n".join(lines[:start] + body + lines[end + 1:])
        return nb
    raise ValueError(f"variant {variant.name}: no cell with grade_id {variant.cell!r}")


def grade_all(assignment: str, workdir: Path, extra: dict | None = None,
              timeout: float = 1800, files: dict | None = None, env: dict | None = None,
              variants: bool = True) -> GradeRun:
    """Autograde solution, blank, every variant (and ``extra`` notebooks) in one run.

    ``files`` maps a student to {relative path: text} handed in beside the notebook;
    ``env`` is added to nbgrader's environment."""
    root = scratch_course(workdir, [assignment])
    db_url = f"sqlite:///{root / 'grading' / 'gradebook.db'}"
    released = generate(assignment, root, db_url=db_url)
    source = nbformat.read(SOLUTIONS / assignment / f"{assignment}.ipynb", as_version=4)
    blank = nbformat.read(released / f"{assignment}.ipynb", as_version=4)
    students = {"solution": source, "blank": blank}
    for variant in load_variants(assignment) if variants else []:
        students[variant.student] = inject(source, variant)
    students.update(extra or {})
    for student, nb in students.items():
        dest = root / "grading" / "submitted" / student / assignment
        shutil.copytree(released, dest)
        nbformat.write(nb, str(dest / f"{assignment}.ipynb"))
        for rel, text in (files or {}).get(student, {}).items():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            (dest / rel).write_text(text)
    proc = nbgrader("autograde", assignment, "--force", root=root, db_url=db_url,
                    timeout=timeout, check=False, env=env)
    run = GradeRun(assignment, root, log=proc.stdout + proc.stderr)

    from nbgrader.api import Gradebook, MissingEntry

    with Gradebook(db_url) as gb:
        for student in students:
            try:
                sn = gb.find_submission_notebook(assignment, assignment, student)
            except MissingEntry:
                continue
            run.scores[student] = {g.name: (g.score, g.max_score) for g in sn.grades}
    return run


def error_names(nb: nbformat.NotebookNode) -> list[tuple[int, str, str]]:
    """(cell index, exception name, message) for every error output in a notebook."""
    found = []
    for i, cell in enumerate(nb.cells):
        for out in cell.get("outputs", []):
            if out.get("output_type") == "error":
                found.append((i, out.get("ename", ""), out.get("evalue", "")))
    return found

