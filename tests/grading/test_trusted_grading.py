"""Trusted grading against the red-team corpus (tests/redteam/<NN_name>/): tricks win nothing.

Every file in tests/redteam/<NN_name>/ is one hostile student's trick, added to honest work
of that notebook (tests/redteam/README.md: the file format). Graded through the course's
pipeline (learner's cells in the sandbox, tests in the judge kernel: grading/trusted/judge.py), each
trick scores exactly what the same honest work scores without it, graded in the same run.
Graded the way nbgrader grades by default (tests in the student's kernel; COURSE_JUDGE=off),
the tricks marked ``# fools: nbgrader`` get more, which shows the corpus attacks something
real. Tricks named ``leak_probe*`` print what the learner's kernel saw; no hidden test and no
request of the judge may be among their outputs.

Per notebook: one nbgrader run through the trusted path (trimmed notebooks: tests/harness.py
CellGraph.trim), and one plain run where some trick is marked; the notebooks' corpora are in
xdist groups of their own, so they spread over the workers.
"""

from __future__ import annotations

import copy
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
import pytest

from grading.course import SOLUTIONS
from labkit.judge.reset import EXAMPLES_CAP_ENV
from tests.harness import BEGIN, END, VARIANT_EXAMPLES, CellGraph, Variant, grade_all, inject

REDTEAM = Path(__file__).resolve().parents[1] / "redteam"
VARIANTS = Path(__file__).resolve().parents[1] / "variants"
NOTEBOOKS = sorted(p.name for p in REDTEAM.iterdir() if p.is_dir() and re.match(r"\d\d_", p.name))
STARTUP = Path(os.path.expanduser("~/.ipython/profile_default/startup/00-redteam-startup.py"))
# per notebook: nbgrader's environment (00's builtins_patch leaves the learner's kernel unable
# to answer: its test calls end at the per-cell limit, lowered here; 00's slowest cell takes
# under 2 s in grading mode: benchmarks/notebook_runtime.py 00_getting_started)
ENV = {"00_getting_started": {"COURSE_CELL_TIMEOUT": "15"}}
# 00: hidden-test text that must never reach the learner's kernel (besides what is read from
# the hidden regions themselves, below)
HIDDEN_MARKERS = {"00_getting_started": ("BEGIN HIDDEN TESTS", "8 PiB float64 tensor",
                                         "torch's own count")}
# what a leak probe prints in front of each thing it saw
SAW_CELL, SAW_REQUEST = "LEAK-CELL:", "LEAK-REQUEST:"
# The first test of a notebook's xdist group grades the whole group (every student, one or two
# nbgrader runs: 06's takes 10 minutes alone on an idle 2-core machine), so its limit is the
# group's, not one test's.
pytestmark = pytest.mark.timeout(3000)


# ---------------------------------------------------------------------------------------
# the corpus
# ---------------------------------------------------------------------------------------
@dataclass
class Trick:
    notebook: str
    name: str
    base: str                       # "solution", "blank", or "variant:A variant:B ..."
    scores: float | None            # None: the same as the base, graded in the same run
    fools: bool
    after: str | None               # grade id of the cell the first cell goes after
    at_most: bool = False           # "# scores: at most same": no more than the base
    part: int = 0                   # which of the notebook's judged runs grades it (PARTS)
    cells: list[tuple[str, str, str]] = field(default_factory=list)  # (how, grade id, code)
    files: dict[str, str] = field(default_factory=dict)

    @property
    def student(self) -> str:
        return f"trick-{self.name}"

    @property
    def leak_probe(self) -> bool:
        return self.name.startswith("leak_probe")


def _lines(path: Path) -> list[str]:
    """The file's lines, each '# include: NAME' replaced by tests/redteam/NAME's (code several
    notebooks' tricks share, such as the leak probe's)."""
    out = []
    for line in path.read_text().splitlines():
        m = re.match(r"^# include:\s*(\S+)$", line)
        out += _lines(REDTEAM / m.group(1)) if m else [line]
    return out


def parse(notebook: str, path: Path) -> Trick:
    head, sections, current = {}, [("after", None, [])], None
    for line in _lines(path):
        m = re.match(r"^# (base|scores|fools|after):\s*(.*)$", line)
        if m and len(sections) == 1 and not sections[0][2] and current is None:
            head[m.group(1)] = m.group(2).strip()
            continue
        f = re.match(r"^# ---- file: (\S+)$", line)
        c = re.match(r"^# ---- cell (after|into): (\S+)$", line)
        r = re.match(r"^# ---- region: (\S+)$", line)
        if f:
            current = f.group(1)
            sections.append(("file", current, []))
        elif c:
            current = None
            sections.append((c.group(1), c.group(2), []))
        elif r:
            current = None
            sections.append(("region", r.group(1), []))
        else:
            sections[-1][2].append(line)
    scores = head.get("scores", "same")
    at_most = scores.startswith("at most ")
    scores = scores.removeprefix("at most ")
    trick = Trick(notebook, path.stem, head["base"], None if scores == "same" else float(scores),
                  head.get("fools") == "nbgrader", head.get("after"), at_most=at_most)
    for how, where, lines in sections:
        text = "\n".join(lines).strip() + "\n"
        if how == "file":
            trick.files[where] = "\n".join(lines) + "\n"
        elif text.strip():
            trick.cells.append((how, where, text))
    return trick


# notebooks whose corpus is graded in several judged runs, each with the honest work its tricks
# build on, each an xdist group of its own: 06's one run of 18 students took 1,500 s of a loaded
# 4-worker make test, and its 1,800 s limit was reached in another
PARTS = {"06_sharded_data_parallel": 2}


def group(notebook: str, part: int = 0) -> str:
    return f"redteam-{notebook}" + (f"-part{part + 1}" if part else "")


def corpus(notebook: str) -> list[Trick]:
    tricks = [parse(notebook, p) for p in sorted((REDTEAM / notebook).glob("*.py"))]
    for i, trick in enumerate(tricks):
        trick.part = i % PARTS.get(notebook, 1)
    return tricks


TRICKS = [t for nb in NOTEBOOKS for t in corpus(nb)]


def base_variant(notebook: str, name: str) -> Variant:
    """A wrong answer by name: tests/redteam/<NN>/bases/NAME.py, else tests/variants/<NN>/NAME.py
    (the variants' format: '# cell:', '# region:', then the code of the solution region)."""
    for folder in (REDTEAM / notebook / "bases", VARIANTS / notebook):
        path = folder / f"{name}.py"
        if path.is_file():
            break
    else:
        raise FileNotFoundError(f"base variant {name!r} of {notebook}: no {name}.py in "
                                f"tests/redteam/{notebook}/bases/ or tests/variants/{notebook}/")
    cell, region, code, header = None, 1, [], True
    for line in path.read_text().splitlines():
        m = re.match(r"^# (cell|region|loses|scores):\s*(.*)$", line) if header else None
        if m:
            cell = m.group(2).strip() if m.group(1) == "cell" else cell
            region = int(m.group(2)) if m.group(1) == "region" else region
            continue
        header = False
        code.append(line)
    return Variant(notebook, name, cell, [], "\n".join(code).strip("\n"), region)


def _read(path: Path) -> nbformat.NotebookNode:
    return nbformat.read(path, as_version=4)


def honest(notebook: str, base: str, regions: tuple = ()) -> nbformat.NotebookNode:
    """Honest work named by a trick's base, trimmed to the cells grading reads
    (tests/harness.py: the demos do not change a verdict and cost most of the run); with
    ``regions`` (a trick's answers, as Variants) in place of the base's answers of those cells."""
    if base == "blank":
        if regions:
            raise ValueError("a '# ---- region:' trick builds on the solution or a variant")
        nb = _read(SOLUTIONS.parent / "notebooks" / notebook / f"{notebook}.ipynb")
        return CellGraph(nb).trim(nb)
    nb = _read(SOLUTIONS / notebook / f"{notebook}.ipynb")
    for region in regions:
        nb = inject(nb, region)
    if base != "solution":
        for token in base.split():
            if not token.startswith("variant:"):
                raise ValueError(f"base {base!r}: use 'solution', 'blank' or 'variant:NAME ...'")
            variant = base_variant(notebook, token.removeprefix("variant:"))
            if variant.cell not in {r.cell for r in regions}:
                nb = inject(nb, variant)
    return CellGraph(nb).trim(nb)


def _index(nb: nbformat.NotebookNode, gid: str) -> int:
    for i, c in enumerate(nb.cells):
        if c.metadata.get("nbgrader", {}).get("grade_id") == gid:
            return i
    raise ValueError(f"no cell with grade_id {gid!r}")


def with_trick(trick: Trick) -> nbformat.NotebookNode:
    """The base's notebook with the trick's cells: new cells after the named cells (by default
    after the first answer cell), code appended to the end of the named answer cells, code in
    place of the solution region of the named answer cells."""
    regions = tuple(Variant(trick.notebook, trick.name, gid, [], code.strip("\n"))
                    for how, gid, code in trick.cells if how == "region")
    nb = copy.deepcopy(honest(trick.notebook, trick.base, regions))
    first = next(c.metadata["nbgrader"]["grade_id"] for c in nb.cells
                 if c.metadata.get("nbgrader", {}).get("solution"))
    for how, gid, code in trick.cells:
        gid = gid or trick.after or first
        if how == "region":  # put in place by honest() above
            continue
        at = _index(nb, gid)
        if how == "into":
            nb.cells[at].source = nb.cells[at].source.rstrip("\n") + "\n\n" + code
        else:
            nb.cells.insert(at + 1, nbformat.v4.new_code_cell(code))
    return nb


def students(notebook: str, tricks: list[Trick], judged: bool = True) -> tuple[dict, dict, dict]:
    """Notebooks and handed-in files for one run (each trick, each base once), and the student
    each base is graded as. The judged run grades a "solution" and a "blank": the first holds
    the trimmed solution; the second the trimmed blank where a trick builds on it, else the
    first other base (one submission fewer). A plain run grades only the tricks and their
    bases (grade_all's ``solution_and_blank=False``)."""
    notebooks = {t.student: with_trick(t) for t in tricks}
    bases = sorted({t.base for t in tricks}, key=lambda b: (b in ("solution", "blank"), b))
    graded_as = {b: b for b in bases if b in ("solution", "blank")}
    if judged:
        graded_as["solution"] = "solution"
    others = [b for b in bases if b not in graded_as]
    if others and "blank" not in graded_as:
        graded_as[others.pop(0)] = "blank"
    for b in others:
        graded_as[b] = "honest-" + "--".join(t.removeprefix("variant:") for t in b.split())
    for base, student in graded_as.items():
        notebooks[student] = honest(notebook, base)
    if judged:
        notebooks.setdefault("blank", honest(notebook, "blank"))
    return notebooks, {t.student: t.files for t in tricks if t.files}, graded_as


# ---------------------------------------------------------------------------------------
# the runs: one per notebook and kind, made once per test process (xdist groups keep each
# notebook's tests in one process)
# ---------------------------------------------------------------------------------------
_RUNS: dict = {}


def _run(notebook: str, kind: str, tmp_path_factory, part: int = 0):
    """The run of one notebook and kind (and part, for a judged run), made once per test
    process; a run that failed fails every test that reads it, with its error, and is not
    made again (a second try would cost as much and end the same way)."""
    key = (notebook, kind, part if kind == "judged" else 0)
    if isinstance(_RUNS.get(key), BaseException):
        raise RuntimeError(f"the {kind} run of {notebook} (part {key[2] + 1}) failed earlier in "
                           f"this process: {_RUNS[key]!r}")
    if key not in _RUNS:
        tricks = corpus(notebook)
        if kind == "judged":
            tricks = [t for t in tricks if t.part == part]
            STARTUP.unlink(missing_ok=True)
            # tricks and their honest bases are graded alike, with few generated examples
            env = {**ENV.get(notebook, {}), EXAMPLES_CAP_ENV: str(VARIANT_EXAMPLES)}
        else:
            keep = [t for t in tricks if t.fools or (notebook == "00_getting_started"
                                                     and t.leak_probe)]
            tricks, env = keep, {**ENV.get(notebook, {}), "COURSE_JUDGE": "off"}
        notebooks, files, graded_as = students(notebook, tricks, judged=kind == "judged")
        try:
            run = grade_all(notebook, tmp_path_factory.mktemp(f"{kind}-{notebook}"),
                            extra=notebooks, files=files, env=env, variants=False,
                            solution_and_blank=kind == "judged")
            run.graded_as = graded_as
            _RUNS[key] = run
        except Exception as exc:
            _RUNS[key] = exc
            raise
        finally:
            if kind == "in-kernel":
                STARTUP.unlink(missing_ok=True)
    return _RUNS[key]


def _params(tricks, **kwargs):
    return [pytest.param(t, id=f"{t.notebook}-{t.name}", **kwargs,
                         marks=pytest.mark.xdist_group(group(t.notebook, t.part))) for t in tricks]


def _nb_params(names):
    """One parameter (notebook, part) per judged run."""
    return [pytest.param(nb, k, id=nb + (f"-part{k + 1}" if k else ""),
                         marks=pytest.mark.xdist_group(group(nb, k)))
            for nb in names for k in range(PARTS.get(nb, 1))]


def _expected(run, trick: Trick) -> float:
    if trick.scores is not None:
        return trick.scores
    return run.total(run.graded_as[trick.base])[0]


# ---------------------------------------------------------------------------------------
# tests
# ---------------------------------------------------------------------------------------
def test_every_notebook_has_a_corpus():
    assert set(NOTEBOOKS) >= {p.name for p in SOLUTIONS.iterdir()
                              if (p / f"{p.name}.ipynb").is_file()}
    for nb in NOTEBOOKS:
        tricks = corpus(nb)
        assert sum(not t.leak_probe for t in tricks) >= 3, f"{nb}: fewer than 3 attacks"
        assert any(t.leak_probe for t in tricks), f"{nb}: no leak probe"


@pytest.mark.parametrize("notebook,part", _nb_params(NOTEBOOKS))
def test_honest_work_scores_as_expected(notebook, part, tmp_path_factory):
    run = _run(notebook, "judged", tmp_path_factory, part)
    got, full = run.total("solution")
    assert got == full > 0, f"trimmed solution scored {got} of {full}\n{run.log[-3000:]}"
    if "blank" not in run.graded_as.values() or run.graded_as.get("blank") == "blank":
        assert run.total("blank")[0] == 0
    for base in {t.base for t in corpus(notebook) if t.part == part} - {"solution", "blank"}:
        got = run.total(run.graded_as[base])[0]
        assert got < full, f"honest work {base!r} scores full ({got}): its tricks have nothing to win"


@pytest.mark.parametrize("trick", _params(TRICKS))
def test_trick_scores_what_the_honest_work_scores(trick, tmp_path_factory):
    run = _run(trick.notebook, "judged", tmp_path_factory, trick.part)
    got, expected = run.total(trick.student)[0], _expected(run, trick)
    if got > expected or (got != expected and not trick.at_most):
        failed = sorted(g for g, (s, m) in run.scores[trick.student].items() if s < m)
        base = run.scores[run.graded_as[trick.base]]
        won = sorted(g for g, (s, m) in run.scores[trick.student].items() if s > base[g][0])
        pytest.fail(f"{trick.notebook} {trick.name}: scored {got}, the same honest work without "
                    f"the trick ({trick.base}) scores {expected}; cells it won: {won}; "
                    f"cells it failed: {failed}")


FOOLS = [t for t in TRICKS if t.fools]


@pytest.mark.parametrize("trick", _params(FOOLS))
def test_trick_fools_in_kernel_grading(trick, tmp_path_factory):
    run = _run(trick.notebook, "in-kernel", tmp_path_factory)
    got = run.total(trick.student)[0]
    assert got > _expected(run, trick), (f"{trick.name} was meant to fool in-kernel grading, "
                                         f"scored {got}")


def test_corpus_00_fools_in_kernel_grading_six_ways():
    assert len([t for t in FOOLS if t.notebook == "00_getting_started"]) >= 6


def _learner_outputs(nb: nbformat.NotebookNode, tests_too: bool = False) -> str:
    """Everything the learner's cells showed (what the feedback shows of them), as text;
    ``tests_too``: test cells' outputs as well (where tests run in the student's kernel,
    those are the student's kernel's outputs too)."""
    text = []
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type != "code" or (not tests_too and meta.get("grade")
                                        and not meta.get("solution")):
            continue  # the judge's own outputs
        for out in cell.get("outputs", []):
            text.append(out.get("text", ""))
            text.extend(str(v) for v in out.get("data", {}).values())
            text.extend([out.get("ename", ""), out.get("evalue", ""), *out.get("traceback", [])])
    return "\n".join(text)


def hidden_lines(notebook: str) -> list[str]:
    """Lines of the hidden-test regions that appear nowhere else in the notebook (markdown,
    answer and visible test cells): the learner has no other way to know them."""
    nb = _read(SOLUTIONS / notebook / f"{notebook}.ipynb")
    hidden, shown = set(), []
    for cell in nb.cells:
        inside = False
        for line in cell.source.splitlines():
            if "BEGIN HIDDEN TESTS" in line:
                inside = True
            elif "END HIDDEN TESTS" in line:
                inside = False
            elif inside:
                hidden.add(line.strip())
            else:
                shown.append(line)
    seen = "\n".join(shown)
    return sorted(s for s in hidden if len(s) >= 24 and s not in seen and BEGIN not in s
                  and END not in s)


LEAKS = [t for t in TRICKS if t.leak_probe]


@pytest.mark.parametrize("trick", _params(LEAKS))
def test_hidden_tests_never_reach_the_learners_outputs(trick, tmp_path_factory):
    """The learner's outputs are what the feedback shows of the learner's cells: they carry no
    hidden test text, no request the judge made, and no argument of one."""
    run = _run(trick.notebook, "judged", tmp_path_factory, trick.part)
    leaked = _learner_outputs(run.autograded(trick.student))
    # the probe shows it ran: what it printed before the tests called the learner's code, or,
    # where all its printing comes later, the judge's note that such output was not kept
    assert SAW_CELL in leaked or "output not kept" in leaked, "the probe printed nothing"
    assert SAW_REQUEST not in leaked, ("a request of the judge reached the learner's outputs:\n"
                                       + leaked[leaked.index(SAW_REQUEST):][:1500])
    found = [m for m in (*HIDDEN_MARKERS.get(trick.notebook, ()), *hidden_lines(trick.notebook))
             if m in leaked]
    assert not found, f"hidden-test text in the learner's outputs: {found[:5]}"


def feedback_of(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """What a student's feedback shows of an autograded notebook under HIDDEN=hide (make
    autograde's default): the feedback's preprocessors of grading/batch/grade_worker.py."""
    from grading.trusted.preprocessors import HideGraderPaths, HideHiddenTests

    nb = copy.deepcopy(nb)
    for step in (HideHiddenTests(), HideGraderPaths()):
        nb, _ = step.preprocess(nb, {})
    return nb


@pytest.mark.parametrize("notebook,part", _nb_params(NOTEBOOKS))
def test_feedback_under_hide_quotes_no_hidden_code_and_no_grader_path(notebook, part,
                                                                       tmp_path_factory):
    """Every student's feedback (tricks and honest work alike): no line of a hidden test, in
    the cells or in any output; a failed test cell with hidden tests shows which test failed
    and the exception's type and message as plain text; no path of the grading machine."""
    import sys

    from grading.course import REPO
    from grading.trusted.preprocessors import hidden_regions

    run = _run(notebook, "judged", tmp_path_factory, part)
    secret = hidden_lines(notebook)
    for student in sorted(run.scores):
        nb = feedback_of(run.autograded(student))
        text = nbformat.writes(nb)
        shown = [line for line in secret if line in text]
        assert not shown, f"{student}'s feedback quotes hidden tests: {shown[:3]}"
        for path in (str(REPO), sys.prefix):
            assert path not in text, f"{student}'s feedback names the grader's {path}"
        source = {c.metadata.get("nbgrader", {}).get("grade_id"): c.source
                  for c in _read(SOLUTIONS / notebook / f"{notebook}.ipynb").cells}
        for cell in nb.cells:
            gid = cell.metadata.get("nbgrader", {}).get("grade_id")
            if cell.cell_type != "code" or not hidden_regions(source.get(gid, "")):
                continue
            for out in cell.get("outputs", []):
                if out.get("output_type") == "error":
                    shown = "".join([out.get("evalue", ""), *out.get("traceback", [])])
                    assert len(out.traceback) <= 2 and not re.search(r"[\x00-\x08\x0b-\x1f]", shown), (
                        f"{student}, {gid}: {out.traceback!r}")


def test_hidden_tests_00_carried_out_where_tests_run_in_the_learners_kernel(tmp_path_factory):
    # where tests run in the student's kernel, the same probe carries them out
    run = _run("00_getting_started", "in-kernel", tmp_path_factory)
    carried = _learner_outputs(run.autograded("trick-leak_probe"), tests_too=True)
    assert all(m in carried for m in HIDDEN_MARKERS["00_getting_started"])


for _test in (test_corpus_00_fools_in_kernel_grading_six_ways,
              test_hidden_tests_00_carried_out_where_tests_run_in_the_learners_kernel):
    pytest.mark.xdist_group("redteam-00_getting_started")(_test)


@pytest.mark.xdist_group("redteam-00_getting_started")
def test_a_startup_file_written_from_a_cell_lands_nowhere(tmp_path_factory):
    _run("00_getting_started", "judged", tmp_path_factory)
    assert not STARTUP.exists()


@pytest.mark.xdist_group("redteam-00_getting_started")
def test_judge_outputs_say_what_failed(tmp_path_factory):
    run = _run("00_getting_started", "judged", tmp_path_factory)
    nb = run.autograded("trick-lying_objects")
    cell = nb.cells[_index(nb, "test_tensor_nbytes")]
    errors = [o for o in cell.outputs if o.output_type == "error"]
    assert errors and errors[0].ename == "AssertionError"
    assert "learner's object of type Anything" in errors[0].evalue
