"""Round trips of course notebooks through nbgrader, shared by the notebook tests.

For one assignment: build a scratch course, ``nbgrader generate_assignment``, submit
the solution, the untouched learner notebook and the variants as students, autograde
them (two nbgrader runs, see ``grade_all``), and read the gradebook.

The solution and the blank notebook are graded whole. Variants that cannot see each other
share one notebook (``bundle``), which keeps only what its own tests read
(``CellGraph.kept_for``: the set-up cell, the cells the variants reach, and the cells those
read); such notebooks are graded as units one after another in the notebooks of a made-up
assignment (``grade_all``), each notebook ending with the solution trimmed the same ways,
which must still score full marks. All of it cuts the suite's time, not what it checks:
each variant is judged only on the cells it can reach.
"""

from __future__ import annotations

import ast
import copy
import dataclasses
import functools
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from grading.tools.colab import CELL_ID as COLAB_CELL_ID
from grading.course import CACHES, SOLUTIONS, generate, nbgrader, notebook_namespace, scratch_course
from grading.trusted.judge import _python, bound_names, free_names

__all__ = ["CellGraph", "GradeRun", "Variant", "bundle", "error_names", "grade_all", "inject",
           "load_variants", "notebook_namespace"]

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
    alone: str = ""           # why it is graded in a notebook of its own (header '# alone:')
    more: tuple = ()          # (region, code) of further regions of the same cell ('# region:'
                              # again in the body starts the next region's code)

    @property
    def student(self) -> str:
        return f"{'right' if self.full else 'wrong'}-{self.name}"


# Code that reads globals by a name computed at run time: such a cell can see every cell.
_DYNAMIC = re.compile(r"\b(globals|locals|vars)\(\)|\b(eval|exec)\s*\(|get_ipython")


@dataclass
class _Code:
    gid: str | None
    role: str                 # "answer", "test" or "given"
    binds: set[str]
    reads: set[str]
    assigned: set[str]        # names assigned anywhere in the cell (not imported)
    imported: set[str]
    dynamic: bool


def _code(cell) -> _Code:
    meta = cell.metadata.get("nbgrader", {})
    role = "answer" if meta.get("solution") else "test" if meta.get("grade") else "given"
    python = _python(cell.source)
    try:
        tree = ast.parse(python)
    except SyntaxError:
        tree = None
    assigned, imported = set(), set()
    for node in ast.walk(tree) if tree else ():
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            assigned.add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            imported.update((a.asname or a.name).split(".")[0] for a in node.names)
    return _Code(meta.get("grade_id"), role, bound_names(tree) if tree else set(),
                 free_names(python), assigned, imported,
                 tree is None or bool(_DYNAMIC.search(cell.source)))


class CellGraph:
    """Which code cells of a notebook can influence which, read statically.

    Cell B depends on cell A when B reads a name A binds other than by ``import`` (in
    either order: a function looks its globals up when it is called). A cell that reads
    globals by a computed name depends on every cell. A variant's own code may also change
    in place any shared value it reads (a name assigned somewhere, not imported, not an
    UPPER_CASE constant), so every cell reading that value depends on it too.
    """

    def __init__(self, nb: nbformat.NotebookNode):
        self.nb = nb
        self.code = {i: _code(c) for i, c in enumerate(nb.cells) if c.cell_type == "code"}
        imported = set().union(*(c.imported for c in self.code.values()))
        assigned = set().union(*(c.assigned for c in self.code.values()))
        self.shared = {n for n in assigned - imported if not n.isupper()}
        self.by_id = {c.gid: i for i, c in self.code.items() if c.gid}
        # the set-up cell: the first code cell, after Colab's (grading/tools/colab.py), which
        # installs labkit on Colab only and which no cell reads
        self.setup = min((i for i in self.code if nb.cells[i].get("id") != COLAB_CELL_ID),
                         default=min(self.code, default=0))

    def downstream(self, gid: str, variant: Variant | None = None) -> set[int]:
        """Cells the named cell can influence (itself included), with ``variant``'s code
        in place of its solution."""
        start = self.by_id[gid]
        first = self.code[start]
        if variant is not None:
            other = _code(inject(self.nb, variant).cells[start])
            first = _Code(first.gid, first.role, first.binds | other.binds,
                          first.reads | other.reads, first.assigned, first.imported,
                          first.dynamic or other.dynamic)
        seen, todo = {start}, [self._makes(first) | (first.reads & self.shared)]
        while todo:
            writes = todo.pop()
            for i, c in self.code.items():
                if i not in seen and (c.dynamic or c.reads & writes):
                    seen.add(i)
                    todo.append(self._makes(c))
        return seen

    @staticmethod
    def _makes(c: _Code) -> set[str]:
        """Names whose value the cell decides: an ``import`` binds the same module wherever
        it runs, so names the cell only imports are left out."""
        return c.binds - (c.imported - c.assigned)

    @functools.cached_property
    def kept(self) -> list[int]:
        """Indices of the cells ``trim`` keeps: markdown, the set-up cell,
        answer and test cells, and the given cells those read, transitively."""
        keep = {i for i, c in self.code.items() if c.role != "given"} | {self.setup}
        todo = list(keep)
        while todo:
            c = self.code[todo.pop()]
            for i, other in self.code.items():
                if i in keep:
                    continue
                if c.dynamic or c.reads & other.binds:
                    keep.add(i)
                    todo.append(i)
        return [i for i, cell in enumerate(self.nb.cells) if cell.cell_type != "code" or i in keep]

    def kept_for(self, cells: set[int], reads: set[str] = frozenset()) -> list[int]:
        """Indices of the cells a notebook needs to grade the test cells among ``cells``
        (a variant's reach): markdown, the set-up cell, those of ``cells`` that ``trim``
        keeps, and the cells they read, transitively; ``reads`` are names the variants'
        own code reads besides (an answer that calls another exercise's function the
        solution does not call). A name a cell only imports comes
        from a kept cell that imports it, or else from the first cell that does; answer
        and test cells nothing needed reads are left out (nbgrader is told not to put
        them back, see ``grade_all``)."""
        keep = ({i for i in cells if i in self.kept} & set(self.code)) | {self.setup}
        keep |= {i for i, other in self.code.items() if i in self.kept and reads & self._makes(other)}
        todo = list(keep)
        while todo:
            while todo:
                c = self.code[todo.pop()]
                for i, other in self.code.items():
                    if i not in keep and (c.dynamic or c.reads & self._makes(other)):
                        keep.add(i)
                        todo.append(i)
            bound = set().union(*(self.code[i].binds for i in keep))
            for name in set().union(*(self.code[i].reads for i in keep)) - bound:
                first = next((i for i in sorted(self.code) if name in self.code[i].imported), None)
                if first is not None and first not in keep:
                    keep.add(first)
                    todo.append(first)
        return [i for i in self.kept if self.nb.cells[i].cell_type != "code" or i in keep]

    def trim(self, nb: nbformat.NotebookNode, cells: list[int] | None = None) -> nbformat.NotebookNode:
        """A copy of ``nb`` (this notebook, variants injected) with only the kept cells, or
        only ``cells`` (indices, from ``kept_for``)."""
        out = copy.deepcopy(nb)
        out.cells = [out.cells[i] for i in (self.kept if cells is None else cells)]
        return out


def bundle(graph: CellGraph, variants: list[Variant]) -> list[list[Variant]]:
    """Variants grouped into notebooks of their own: two share one only when no test cell
    can see both (a correct alternative shares no cell at all with the others); a variant
    naming a cell it cannot reach is graded alone."""
    reach = {v.name: graph.downstream(v.cell, v) for v in variants}
    tests = {i for i, c in graph.code.items() if c.role == "test"}

    def alone(v: Variant) -> bool:
        return not {graph.by_id.get(g) for g in v.loses} <= reach[v.name]

    def apart(v: Variant, w: Variant) -> bool:
        both = reach[v.name] & reach[w.name]
        return not both if (v.full or w.full) else not both & tests

    groups: list[list[Variant]] = []
    for v in variants:
        home = None if alone(v) else next(
            (g for g in groups if not alone(g[0]) and all(apart(v, w) for w in g)), None)
        if home is None:
            groups.append([v])
        else:
            home.append(v)
    return groups


@dataclass
class GradeRun:
    """Scores per student and cell, and the autograded notebooks, of one nbgrader run."""

    assignment: str
    root: Path
    scores: dict[str, dict[str, tuple[float, float]]] = field(default_factory=dict)
    log: str = ""
    graph: CellGraph | None = None
    bundles: dict[str, str] = field(default_factory=dict)   # variant name -> student
    kept: dict[str, list[int]] = field(default_factory=dict)  # student -> source cells kept
    # student graded as a unit -> (notebook of the made-up assignment, first cell, tag)
    units: dict[str, tuple[str, int, str]] = field(default_factory=dict)

    def reach(self, variant: Variant) -> tuple[str, set[str], set[int]]:
        """The student whose notebook holds ``variant``, and the grade ids and cell indices
        (in that trimmed notebook) the variant can influence: those downstream of its cell,
        and the cells it names as lost (a whole-notebook rule reaches beyond the data flow;
        such a variant is graded alone)."""
        cells = self.graph.downstream(variant.cell, variant) | {
            self.graph.by_id[g] for g in variant.loses if g in self.graph.by_id}
        student = self.bundles[variant.name]
        kept = self.kept[student]
        return (student,
                {self.graph.code[i].gid for i in cells if self.graph.code[i].gid and i in kept},
                {kept.index(i) for i in cells if i in kept})

    def autograded(self, student: str) -> nbformat.NotebookNode:
        """The student's autograded notebook; for a unit, its own cells."""
        if student not in self.units:
            path = (self.root / "grading" / "autograded" / student / self.assignment
                    / f"{self.assignment}.ipynb")
            return nbformat.read(path, as_version=4)
        part, first, _ = self.units[student]
        path = (self.root / "grading" / "autograded" / "variants" / f"{self.assignment}_variants"
                / f"{part}.ipynb")
        nb = nbformat.read(path, as_version=4)
        nb.cells = nb.cells[first:first + len(self.kept[student])]
        return nb

    def ran_from_the_start(self, student: str) -> bool:
        """Whether the learner's kernel was alive when the student's cells began (a unit
        after one whose code killed the kernel never ran)."""
        code = [c for c in self.autograded(student).cells if c.cell_type == "code"]
        return bool(code) and code[0].get("execution_count") is not None

    def total(self, student: str) -> tuple[float, float]:
        cells = self.scores[student]
        return sum(s for s, _ in cells.values()), sum(m for _, m in cells.values())


def chosen_notebooks(parser, names: list[str]) -> list[str]:
    """The notebooks a script's command line names (all of solutions/ when none), or the
    parser's error naming the unknown ones and the choices."""
    from grading.course import assignments

    known = assignments()
    unknown = [a for a in names if a not in known]
    if unknown:
        parser.error(f"no such notebook {unknown}; choose among {known}")
    return names or known


def load_variants(assignment: str, root: Path | None = None) -> list[Variant]:
    """The variants kept in tests/variants/<assignment>/*.py (or ``root``/<assignment>): wrong
    answers, and correct answers written another way (header ``# scores: full``)."""
    folder = Path(root or VARIANTS) / assignment
    found = []
    for path in sorted(folder.glob("*.py")) if folder.is_dir() else []:
        header, code_lines, cell, loses, region, full, alone = True, [], None, [], 1, False, ""
        more: list = []   # (region, lines) of each further region
        for line in path.read_text().splitlines():
            m = re.match(r"^# (cell|loses|region|scores|alone):\s*(.*)$", line) if header else None
            nxt = None if header else re.match(r"^# region:\s*(\d+)\s*$", line)
            if nxt:
                more.append((int(nxt.group(1)), []))
                continue
            if more:
                more[-1][1].append(line)
                continue
            if m:
                if m.group(1) == "alone":
                    alone = m.group(2).strip() or "(no reason given)"
                elif m.group(1) == "cell":
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
        others = tuple((r, "\n".join(lines).strip("\n")) for r, lines in more)
        if len({region, *(r for r, _ in others)}) != 1 + len(others):
            raise ValueError(f"{path}: a region is named twice")
        found.append(Variant(assignment, path.stem, cell, loses, code, region, full, alone, others))
    return found


def inject(nb: nbformat.NotebookNode, variant: Variant) -> nbformat.NotebookNode:
    """A copy of ``nb`` with the variant's code in place of the named cell's solution region
    (and of each further region it names)."""
    if variant.more:  # the last region first: replacing one renumbers those after it
        for region, code in sorted([(variant.region, variant.code), *variant.more], reverse=True):
            nb = inject(nb, dataclasses.replace(variant, region=region, code=code, more=()))
        return nb
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


# generated examples per Hypothesis test when variants are graded (labkit.judge.reset's cap), and
# the seed they are drawn from: the same every run, so a variant's grade never depends on luck
VARIANT_EXAMPLES = 3
VARIANT_SEED = "20261124"
# variant notebooks (and the trimmed solutions that prove their trimming) are graded as
# units one after another in the notebooks of one made-up assignment, this many a notebook:
# a unit costs its cells, not a kernel start, set-up imports and nbgrader's bookkeeping
UNITS_PER_NOTEBOOK = 12
# a test cell that reads every cell handed in (labkit.judge.handles.learner_sources, and
# labkit.judge.nocast.source_casts, which calls it): the units before and after its own would be
# part of what it reads
WHOLE_PROGRAM = re.compile(r"\b(learner_sources|source_casts)\s*\(")


def _unit_cells(nb: nbformat.NotebookNode, cells: list[int], tag: str) -> list:
    """Copies of the given cells of ``nb``, their grade ids and cell ids made unique by ``tag``."""
    out = []
    for i in cells:
        cell = copy.deepcopy(nb.cells[i])
        if cell.get("id"):
            cell["id"] = f"{cell['id'][:48]}-{tag}"
        meta = cell.metadata.get("nbgrader")
        if meta and meta.get("grade_id"):
            meta["grade_id"] = f"{meta['grade_id']}__{tag}"
        out.append(cell)
    return out


def grade_all(assignment: str, workdir: Path, extra: dict | None = None,
              timeout: float = 2700, files: dict | None = None, env: dict | None = None,
              variants: bool | list[Variant] = True, solution_and_blank: bool = True) -> GradeRun:
    """Autograde solution, blank, every variant (and ``extra`` notebooks) of one assignment.

    Two nbgrader runs share one course and gradebook: the solution, the blank notebook and
    ``extra`` are graded as a class would be; then the variant bundles and the trimmed
    solutions, each a unit of cells in the notebooks of a made-up assignment
    (``<assignment>_variants``, ``UNITS_PER_NOTEBOOK`` units a notebook, their grade ids
    suffixed with the unit's tag: the wrong answers first, then the correct alternatives,
    then the trimmed solutions, which show the units before them left nothing behind), with
    at most ``VARIANT_EXAMPLES`` generated examples per Hypothesis test in the judge (every
    explicit ``@example`` still runs: they pin each wrong variant's failure) drawn from a
    fixed seed (``VARIANT_SEED``) unless ``env`` names one. ``files`` maps a student to
    {relative path: text} handed in beside the notebook; ``env`` is added to nbgrader's
    environment. ``solution_and_blank=False``: the first run grades ``extra`` alone.
    ``variants`` may list the variants to grade in place of tests/variants' (mutants)."""
    from labkit.judge.reset import EXAMPLES_CAP_ENV, SEED_ENV

    root = scratch_course(workdir, [assignment])
    db_url = f"sqlite:///{root / 'grading' / 'gradebook.db'}"
    released = generate(assignment, root, db_url=db_url)
    source = nbformat.read(SOLUTIONS / assignment / f"{assignment}.ipynb", as_version=4)
    blank = nbformat.read(released / f"{assignment}.ipynb", as_version=4)
    whole = {**({"solution": source, "blank": blank} if solution_and_blank else {}), **(extra or {})}
    graph = CellGraph(source)
    bundles: dict[str, str] = {}
    kept: dict[str, list[int]] = {}
    notebooks: dict[str, nbformat.NotebookNode] = {}  # unit (a student) -> its notebook
    alone: set[str] = set()                          # units graded in a notebook of their own

    def whole_program(cells) -> bool:
        """Whether a test cell among ``cells`` reads every submitted cell."""
        return any(WHOLE_PROGRAM.search(source.cells[i].source) for i in cells
                   if i in graph.code and graph.code[i].role == "test")

    if variants:
        chosen = variants if isinstance(variants, list) else load_variants(assignment)
        groups = bundle(graph, chosen)
        groups = [g for g in groups if not any(v.full for v in g)] + \
                 [g for g in groups if any(v.full for v in g)]
        for k, group in enumerate(groups, 1):
            name, nb, reach, reads = f"variants-{k:02d}", source, set(), set()
            for variant in group:
                nb = inject(nb, variant)
                bundles[variant.name] = name
                reach |= graph.downstream(variant.cell, variant)
                reach |= {graph.by_id[g] for g in variant.loses if g in graph.by_id}
                reads |= _code(nb.cells[graph.by_id[variant.cell]]).reads
            kept[name], notebooks[name] = graph.kept_for(reach, reads), nb
            # a notebook of its own: a variant that says so (one that leaves the learner's
            # kernel broken for what runs after it), or tests that read every submitted cell
            if any(v.alone for v in group) or whole_program(reach):
                alone.add(name)

    def submit(students: dict, to: str = assignment, folder: Path = released) -> None:
        """Hand in each student's {notebook name: notebook} for assignment ``to``."""
        for student, nbs in students.items():
            dest = root / "grading" / "submitted" / student / to
            shutil.copytree(folder, dest)
            for name, nb in nbs.items():
                nbformat.write(nb, str(dest / f"{name}.ipynb"))
            for rel, text in (files or {}).get(student, {}).items():
                (dest / rel).parent.mkdir(parents=True, exist_ok=True)
                (dest / rel).write_text(text)

    submit({student: {assignment: nb} for student, nb in whole.items()})
    proc = nbgrader("autograde", assignment, "--force", root=root, db_url=db_url,
                    timeout=timeout, check=False, env=env)
    log = proc.stdout + proc.stderr
    run = GradeRun(assignment, root, log=log, graph=graph, bundles=bundles, kept=kept)
    packed = f"{assignment}_variants"
    if variants:
        # the made-up assignment: the instructor's notebooks (solution cells) and the one
        # submission (variants injected), unit after unit
        shutil.copytree(SOLUTIONS / assignment, root / "solutions" / packed,
                        ignore=shutil.ignore_patterns("*.ipynb", *CACHES))
        # the solution trimmed as each bundle was (its tests pass without the cells left
        # out) closes the notebooks: each packed one ends with one (nothing its units did
        # spoils it; where there are fewer trimmings than notebooks, the solution trimmed
        # to what the notebook's units kept); one that reads every cell is graded alone
        sets = [tuple(graph.kept), *sorted({tuple(c) for c in kept.values()} - {tuple(graph.kept)})]
        shared = [c for c in sets if not whole_program(c)]
        packable = [u for u in notebooks if u not in alone]
        size = UNITS_PER_NOTEBOOK - 1
        parts = [packable[i:i + size] for i in range(0, len(packable), size)] or [[]]
        closing = [[c] for c in shared[:len(parts)]]
        closing += [[tuple(graph.kept_for(set().union(*(kept[u] for u in part))))] if part else []
                    for part in parts[len(closing):]]
        closing[-1] += shared[len(parts):]
        parts += [[u] for u in notebooks if u in alone] + [[] for c in sets if whole_program(c)]
        closing += [[] for u in notebooks if u in alone] + [[c] for c in sets if whole_program(c)]
        for part, proofs in zip(parts, closing):
            for cells in proofs:
                taken = sum(k.startswith("solution-trimmed") for k in kept)
                name = f"solution-trimmed-{taken:02d}" if taken else "solution-trimmed"
                part.append(name)
                kept[name], notebooks[name] = list(cells), source
        parts = [part for part in parts if part]
        names = [student for part in parts for student in part]
        submission = {}
        for n, members in enumerate(parts, 1):
            part = f"part-{n:02d}"
            ours, theirs = copy.deepcopy(source), copy.deepcopy(source)
            ours.cells, theirs.cells = [], []
            for student in members:
                tag = f"u{names.index(student):02d}"
                run.units[student] = (part, len(theirs.cells), tag)
                ours.cells += _unit_cells(source, kept[student], tag)
                theirs.cells += _unit_cells(notebooks[student], kept[student], tag)
            nbformat.write(ours, str(root / "solutions" / packed / f"{part}.ipynb"))
            submission[part] = theirs
        folder = generate(packed, root, db_url=db_url)
        submit({"variants": submission}, packed, folder)
        proc = nbgrader("autograde", packed, root=root, db_url=db_url, timeout=timeout,
                        check=False, env={SEED_ENV: VARIANT_SEED, **(env or {}),
                                          EXAMPLES_CAP_ENV: str(VARIANT_EXAMPLES)})
        run.log += proc.stdout + proc.stderr

    from nbgrader.api import Gradebook, MissingEntry

    with Gradebook(db_url) as gb:
        for student in whole:
            try:
                sn = gb.find_submission_notebook(assignment, assignment, student)
            except MissingEntry:
                continue
            run.scores[student] = {g.name: (g.score, g.max_score) for g in sn.grades}
        for student, (part, _, tag) in run.units.items():
            try:
                sn = gb.find_submission_notebook(part, packed, "variants")
            except MissingEntry:
                continue
            suffix = f"__{tag}"
            run.scores[student] = {g.name[:-len(suffix)]: (g.score, g.max_score)
                                   for g in sn.grades if g.name.endswith(suffix)}
    return run


def error_names(nb: nbformat.NotebookNode) -> list[tuple[int, str, str]]:
    """(cell index, exception name, message) for every error output in a notebook."""
    found = []
    for i, cell in enumerate(nb.cells):
        for out in cell.get("outputs", []):
            if out.get("output_type") == "error":
                found.append((i, out.get("ename", ""), out.get("evalue", "")))
    return found



# Session fixtures (the browser suite's JupyterLab and Chromium) may live under the same
# test process as a test that checks nothing of its own was left running.
SESSION_FIXTURE_ENV = "COURSE_TEST_SESSION_FIXTURE"


def own_children_left_running() -> list:
    """This process's live descendants, less the session fixtures' process trees."""
    import psutil
    fixtures = set()
    for p in psutil.Process().children(recursive=True):
        try:
            marked = (SESSION_FIXTURE_ENV in p.environ()
                      or any("playwright" in part for part in p.cmdline()[:2]))
            if marked:
                fixtures |= {p.pid, *(c.pid for c in p.children(recursive=True))}
        except psutil.Error:
            pass
    left = []
    for p in psutil.Process().children(recursive=True):
        try:
            if p.pid not in fixtures and p.is_running() and p.status() != psutil.STATUS_ZOMBIE:
                left.append(p)
        except psutil.Error:
            pass
    return left
