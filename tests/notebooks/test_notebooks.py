"""Every notebook in solutions/, proven gradable through nbgrader (DESIGN principle 2).

For each assignment found in solutions/ (no hand-listed names): the solution scores full
marks; the untouched learner notebook scores 0 on every graded cell, runs to its last
cell, and fails only with the stubs' NotImplementedError; every wrong-answer variant in
tests/variants/<assignment>/ loses points, in each cell it names, and every correct answer
written another way there (``# scores: full``) scores full marks; notebooks/ is what
`make release` produces; no notebook carries outputs. Variants are graded in trimmed,
shared notebooks, packed one after another (tests/harness.py says how); the solution,
trimmed the same ways and graded after them, proves the trimming and the packing.
"""

from __future__ import annotations

import json
from fnmatch import fnmatch

import nbformat
import pytest

from grading.course import CACHES, NOTEBOOKS, SOLUTIONS, assignments, clean_notebook, generate, scratch_course
from tests.harness import CellGraph, bundle, error_names, grade_all, load_variants

ASSIGNMENTS = assignments()
VARIANT_CASES = [(a, v) for a in ASSIGNMENTS for v in load_variants(a)]
MIN_VARIANTS = 3
_RUNS: dict = {}
# The first test of a notebook's xdist group grades the whole group (every student, one or two
# nbgrader runs: 06's takes 10 minutes alone on an idle 2-core machine), so its limit is the
# group's, not one test's.
pytestmark = pytest.mark.timeout(3000)


def grouped(assignment: str):
    return pytest.param(assignment, id=assignment, marks=pytest.mark.xdist_group(assignment))


# the tests that read the variants' grading run (grade_all's second nbgrader run)
NEED_VARIANTS = ("test_variant_scores_as_it_should", "test_trimmed_solution_scores_full_marks")


@pytest.fixture(scope="session")
def graded(tmp_path_factory, request):
    """One grading run per assignment; its variants are graded only where a selected test
    reads them (``-k '(solution or blank) and not trimmed'``: the solution and the blank alone)."""
    def get(assignment):
        if isinstance(_RUNS.get(assignment), BaseException):  # failed: not made again
            raise RuntimeError(f"grading {assignment} failed earlier in this process: "
                               f"{_RUNS[assignment]!r}")
        if assignment not in _RUNS:
            variants = any(getattr(item, "originalname", "") in NEED_VARIANTS
                           and item.callspec.params.get("assignment") == assignment
                           for item in request.session.items)
            try:
                _RUNS[assignment] = grade_all(assignment, tmp_path_factory.mktemp(assignment),
                                              variants=variants)
            except Exception as exc:
                _RUNS[assignment] = exc
                raise
        return _RUNS[assignment]

    return get


def test_run_all_goes_on_past_every_test_cell_of_a_learner_notebook():
    """Released test cells carry JupyterLab's and nbclient's ``raises-exception`` tag: Run All
    on a blank notebook ran up to the first test cell and stopped there (00: cell 12 of 25).
    One notebook is also run as nbconvert --execute runs it (errors stop it, but for tagged
    cells): it reaches its last cell, each unfinished test saying so in one line."""
    from nbclient import NotebookClient
    from grading.trusted.preprocessors import IOPUB_TIMEOUT

    from grading.course import RUN_PAST
    from grading.trusted.kernels import IpcKernelManager

    for a in ASSIGNMENTS:
        nb = nbformat.read(NOTEBOOKS / a / f"{a}.ipynb", as_version=4)
        untagged = [i for i, c in enumerate(nb.cells) if c.cell_type == "code"
                    and c.metadata.get("nbgrader", {}).get("grade")
                    and RUN_PAST not in c.metadata.get("tags", [])]
        assert not untagged, f"{a}: test cells {untagged} stop Run All"
    a = ASSIGNMENTS[0]
    nb = nbformat.read(NOTEBOOKS / a / f"{a}.ipynb", as_version=4)
    NotebookClient(nb, iopub_timeout=IOPUB_TIMEOUT, timeout=300, kernel_name="python3", kernel_manager_class=IpcKernelManager,
                   resources={"metadata": {"path": str(NOTEBOOKS / a)}}).execute()
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code[-1].execution_count is not None, "Run All did not reach the last cell"
    shown = [o.traceback for c in code for o in c.outputs if o.output_type == "error"]
    assert shown and all(len(tb) == 1 and "not done yet" in tb[0] for tb in shown), shown


def test_there_are_notebooks():
    assert "00_getting_started" in ASSIGNMENTS, f"found only {ASSIGNMENTS} in {SOLUTIONS}"


@pytest.mark.parametrize("assignment", [grouped(a) for a in ASSIGNMENTS])
def test_solution_scores_full_marks(graded, assignment):
    run = graded(assignment)
    assert "solution" in run.scores, f"solution was not graded:\n{run.log[-3000:]}"
    lost = {c: s for c, s in run.scores["solution"].items() if s[0] != s[1]}
    assert not lost, f"solution lost points in {lost}:\n{run.log[-3000:]}"
    assert run.total("solution")[1] > 0, "the notebook has no graded cells"


@pytest.mark.parametrize("assignment", [grouped(a) for a in ASSIGNMENTS])
def test_blank_scores_zero_everywhere(graded, assignment):
    run = graded(assignment)
    scored = {c: s for c, s in run.scores["blank"].items() if s[0] != 0}
    assert not scored, f"the untouched learner notebook scored points in {scored}"


@pytest.mark.parametrize("assignment", [grouped(a) for a in ASSIGNMENTS])
def test_blank_runs_to_the_end_with_only_stub_errors(graded, assignment):
    nb = graded(assignment).autograded("blank")
    code = [c for c in nb.cells if c.cell_type == "code" and c.source.strip()]
    unexecuted = [i for i, c in enumerate(code) if c.get("execution_count") is None]
    assert not unexecuted, f"code cells {unexecuted} never ran in the learner notebook"
    others = [e for e in error_names(nb) if e[1] != "NotImplementedError"]
    assert not others, (
        "the untouched learner notebook must fail only with NotImplementedError; "
        f"found (cell, error, message): {others}"
    )


@pytest.mark.parametrize("assignment", [grouped(a) for a in ASSIGNMENTS])
def test_solution_runs_without_errors(graded, assignment):
    errors = error_names(graded(assignment).autograded("solution"))
    assert not errors, f"errors in the solution notebook (cell, error, message): {errors}"


@pytest.mark.parametrize(
    "assignment,variant",
    [pytest.param(a, v, id=f"{a}-{v.name}", marks=pytest.mark.xdist_group(a))
     for a, v in VARIANT_CASES],
)
def test_variant_scores_as_it_should(graded, assignment, variant):
    run = graded(assignment)
    student, reach, indices = run.reach(variant)
    assert student in run.scores, f"{student} ({variant.name}) was not graded:\n{run.log[-3000:]}"
    assert run.ran_from_the_start(student), (
        f"{student} ({variant.name}) never ran: the learner's kernel died in a unit graded "
        f"before it in the same notebook:\n{run.log[-3000:]}")
    cells = run.scores[student]
    lost = {c: s for c, s in cells.items() if s[0] != s[1] and c in reach}
    if variant.full:
        assert not lost, (f"{variant.name} is a correct answer written another way, "
                          f"yet it lost points in {lost}:\n{run.log[-3000:]}")
        errors = [e for e in error_names(run.autograded(student)) if e[0] in indices]
        assert not errors, f"{variant.name}: errors (cell, error, message): {errors}"
        return
    assert lost, f"variant {variant.name} still scores full marks in every cell it reaches"
    for cell in variant.loses:
        assert cell in cells, f"variant {variant.name} names unknown test cell {cell!r}"
        score, max_score = cells[cell]
        assert score < max_score, f"variant {variant.name} should lose points in {cell}"


@pytest.mark.parametrize("assignment", [grouped(a) for a in ASSIGNMENTS])
def test_trimmed_solution_scores_full_marks(graded, assignment):
    """Variants are graded in notebooks that keep only the cells grading reads, and of
    those only the cells their bundle's tests need; the solution trimmed each of these
    ways, graded after every variant, must still score full marks in every cell it keeps,
    with no error."""
    run = graded(assignment)
    proofs = [s for s in run.scores if s.startswith("solution-trimmed")]
    assert "solution-trimmed" in proofs, f"the trimmed solution was not graded:\n{run.log[-3000:]}"
    assert {tuple(run.kept[s]) for s in proofs} >= {tuple(c) for c in run.kept.values()}, (
        proofs, run.log[-3000:])
    for student in proofs:
        assert run.ran_from_the_start(student), f"{student} never ran:\n{run.log[-3000:]}"
        assert run.scores[student], f"{student} keeps no graded cell"
        lost = {c: s for c, s in run.scores[student].items() if s[0] != s[1]}
        assert not lost, f"{student} lost points in {lost}:\n{run.log[-3000:]}"
        errors = error_names(run.autograded(student))
        assert not errors, f"errors in {student} (cell, error, message): {errors}"


@pytest.mark.parametrize("assignment", [grouped(a) for a in ASSIGNMENTS])
def test_every_variant_shares_a_notebook_only_with_variants_it_cannot_reach(assignment):
    source = nbformat.read(SOLUTIONS / assignment / f"{assignment}.ipynb", as_version=4)
    graph = CellGraph(source)
    tests = {i for i, c in graph.code.items() if c.role == "test"}
    for group in bundle(graph, load_variants(assignment)):
        assert len({v.cell for v in group}) == len(group), [v.name for v in group]
        for v in group:
            for w in group:
                if v is not w:
                    both = graph.downstream(v.cell, v) & graph.downstream(w.cell, w)
                    assert not both & tests, (v.name, w.name, both)


@pytest.mark.parametrize("assignment", [grouped(a) for a in ASSIGNMENTS])
def test_every_notebook_has_wrong_answer_variants(assignment):
    variants = [v for v in load_variants(assignment) if not v.full]
    assert len(variants) >= MIN_VARIANTS, (
        f"{assignment} has {len(variants)} wrong-answer variants in tests/variants/{assignment}/; "
        f"at least {MIN_VARIANTS} are needed to show its tests can fail"
    )


@pytest.mark.parametrize("assignment", [grouped(a) for a in ASSIGNMENTS])
def test_notebooks_folder_is_what_release_produces(assignment, tmp_path):
    root = scratch_course(tmp_path, [assignment])
    out = generate(assignment, root, db_url=f"sqlite:///{tmp_path / 'gb.db'}")
    fresh = sorted(p.relative_to(out) for p in out.rglob("*") if p.is_file())
    committed_dir = NOTEBOOKS / assignment
    committed = sorted(p.relative_to(committed_dir) for p in committed_dir.rglob("*") if p.is_file()
                       and not any(fnmatch(part, c) for part in p.parts for c in CACHES))  # a local run's
    assert fresh == committed, f"notebooks/{assignment} holds {committed}, release makes {fresh}"
    for rel in fresh:
        if rel.suffix == ".ipynb":
            a = json.loads((out / rel).read_text())
            b = json.loads((committed_dir / rel).read_text())
            assert a == b, f"notebooks/{assignment}/{rel} is out of date: run 'make release'"
        else:
            assert (out / rel).read_bytes() == (committed_dir / rel).read_bytes()


def test_notebooks_folder_has_no_stray_assignments():
    stray = sorted(p.name for p in NOTEBOOKS.iterdir() if p.is_dir()) if NOTEBOOKS.exists() else []
    assert stray == ASSIGNMENTS, f"notebooks/ holds {stray} but solutions/ holds {ASSIGNMENTS}"


def _all_notebooks():
    return sorted(SOLUTIONS.rglob("*.ipynb")) + sorted(NOTEBOOKS.rglob("*.ipynb"))


@pytest.mark.parametrize("path", _all_notebooks(), ids=lambda p: str(p.relative_to(SOLUTIONS.parent)))
def test_notebook_is_committed_clean(path):
    nb = nbformat.read(path, as_version=4)
    dirty = [i for i, c in enumerate(nb.cells)
             if c.cell_type == "code" and (c.outputs or c.execution_count is not None)]
    assert not dirty, f"{path.name}: cells {dirty} carry outputs or execution counts"
    clean = clean_notebook(nbformat.from_dict(json.loads(json.dumps(nb))))
    assert nb.metadata == clean.metadata, f"{path.name}: extra notebook metadata {set(nb.metadata)}"


@pytest.mark.parametrize("assignment", [grouped(a) for a in ASSIGNMENTS])
def test_notebook_has_the_course_shape(assignment):
    nb = nbformat.read(SOLUTIONS / assignment / f"{assignment}.ipynb", as_version=4)
    text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    first = nb.cells[0]
    assert first.cell_type == "markdown" and first.source.startswith("# "), "starts with an H1 title"
    for heading in ("What you will learn", "Set-up", "Summary", "Going further"):
        assert heading.lower() in text.lower(), f"{assignment} has no '{heading}' section"
    assert "import labkit" in "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    graded = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade")]
    for cell in graded:
        first_line = cell.source.lstrip().splitlines()[0] if cell.source.strip() else ""
        assert first_line.startswith(('"""', "'''")), (
            f"test cell {cell.metadata['nbgrader']['grade_id']} should open with a docstring")


def test_variants_name_real_cells():
    for assignment, variant in VARIANT_CASES:
        nb = nbformat.read(SOLUTIONS / assignment / f"{assignment}.ipynb", as_version=4)
        ids = {c.metadata.get("nbgrader", {}).get("grade_id") for c in nb.cells}
        assert variant.cell in ids, f"{variant.name}: no cell {variant.cell} in {assignment}"
        for cell in variant.loses:
            assert cell in ids, f"{variant.name}: no test cell {cell} in {assignment}"


