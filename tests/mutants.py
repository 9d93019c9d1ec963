"""The course's own adversary: mutants of each reference answer, graded by the hidden tests.

Each solution region of solutions/NN/NN.ipynb is parsed and changed in one place at a time by
the operators below (an arithmetic or comparison swapped, a boundary shifted, a statement
dropped, a dtype narrowed, a copy or an in-place call removed, two arguments swapped, a value
returned early...). Every mutant is a wrong answer a learner could hand in; it is graded as the
variants in tests/variants are (tests/harness.py: bundles of cells no test sees together, a
fixed seed, the hidden tests), and it must lose a point somewhere. A mutant that scores full
is either caught by a new test or listed in tests/mutants/equivalent.txt with the reason it
is a correct answer (its key, printed here, names it).

    make mutants [NB=03_allreduce] [ONLY=ring_allreduce_] [SEED=...]

prints each notebook's mutation score (mutants caught / mutants not listed as equivalent),
each survivor with its change and key, and exits 1 when one survived.
    python tests/mutants.py --list NB   the mutants alone, without grading them
    python tests/mutants.py --scores    the recorded score of each region, and whether it is current

Each graded region's score is recorded in tests/mutants/scores.json with a digest of what
decides its verdicts (the notebook's code cells, the checks modules it names, the region's
mutants and the equivalents listed for it); tests/test_mutants.py fails when a record is
missing, belongs to other code, or has a survivor. The judge's machinery (labkit/judge) is not
in the digest: after changing it, run make mutants again.
"""

from __future__ import annotations

import argparse
import ast
import copy
import datetime
import difflib
import hashlib
import json
import os
import platform
import re
import sys
import tempfile
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path

import nbformat

if __package__ in (None, ""):  # run as a script: the repository's root on the path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from grading.course import SOLUTIONS  # noqa: E402
from tests.harness import BEGIN, END, Variant, chosen_notebooks  # noqa: E402

EQUIVALENT = Path(__file__).resolve().parent / "mutants" / "equivalent.txt"
SCORES = Path(__file__).resolve().parent / "mutants" / "scores.json"
LABKIT = Path(__file__).resolve().parents[1] / "labkit"

# methods that return their receiver's value in another form: dropping the call keeps the value
# and loses the property (a copy, a dtype, a layout, a detached graph)
_TRANSPARENT = {"clone", "detach", "contiguous", "float", "double", "half", "bfloat16", "copy",
                "item", "tolist", "cpu", "numpy", "flatten", "ravel", "squeeze", "t", "long",
                "int", "wait", "result", "synchronize"}
_NARROWER = {"float64": "float32", "double": "float32", "float32": "float16", "float": "float16",
             "int64": "int32", "long": "int32", "int32": "int16", "bfloat16": "float16",
             "float16": "bfloat16"}
_BINOP = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult,
          ast.FloorDiv: ast.Div, ast.Mod: ast.FloorDiv, ast.Pow: ast.Mult,
          ast.LShift: ast.RShift, ast.RShift: ast.LShift, ast.BitAnd: ast.BitOr,
          ast.BitOr: ast.BitAnd, ast.BitXor: ast.BitOr}
_CMP = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq,
        ast.NotEq: ast.Eq, ast.Is: ast.IsNot, ast.IsNot: ast.Is, ast.In: ast.NotIn,
        ast.NotIn: ast.In}


@dataclass(frozen=True)
class Mutant:
    assignment: str
    cell: str
    region: int
    operator: str
    line: int                 # line in the region (1-based)
    original: str             # the region as written
    code: str                 # the region mutated (ast.unparse's layout)

    @property
    def key(self) -> str:
        """Stable name: the cell, the region and a digest of the mutated code."""
        digest = hashlib.sha1(self.code.encode()).hexdigest()[:10]
        return f"{self.cell}:{self.region}:{digest}"

    def variant(self, n: int) -> Variant:
        return Variant(self.assignment, f"mutant-{n:04d}", self.cell, [], self.code, self.region)

    def diff(self) -> str:
        before = ast.unparse(ast.parse(self.original)).splitlines()
        return "\n".join(line for line in difflib.unified_diff(
            before, self.code.splitlines(), lineterm="", n=0) if not line.startswith(("---", "+++", "@@")))


def regions(assignment: str) -> list[tuple[str, int, str]]:
    """(grade id, region number, code dedented) of every solution region of a notebook."""
    nb = nbformat.read(SOLUTIONS / assignment / f"{assignment}.ipynb", as_version=4)
    found = []
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type != "code" or not meta.get("solution") or not meta.get("grade_id"):
            continue
        lines = cell.source.splitlines()
        starts = [i for i, ln in enumerate(lines) if ln.strip() == BEGIN]
        ends = [i for i, ln in enumerate(lines) if ln.strip() == END]
        for r, (s, e) in enumerate(zip(starts, ends), 1):
            found.append((meta["grade_id"], r, textwrap.dedent("\n".join(lines[s + 1:e]))))
    return found


class _Sites(ast.NodeVisitor):
    """Every (node, operator, replacement-maker) the operators can change in one tree."""

    def __init__(self):
        self.sites: list[tuple[ast.AST, str, callable]] = []

    def add(self, node, name, make):
        self.sites.append((node, name, make))

    def visit_BinOp(self, node):
        if type(node.op) in _BINOP:
            self.add(node, f"binop {type(node.op).__name__}->{_BINOP[type(node.op)].__name__}",
                     lambda n: setattr(n, "op", _BINOP[type(n.op)]()))
        self.generic_visit(node)

    def visit_AugAssign(self, node):
        if type(node.op) in _BINOP:
            self.add(node, "augassign op", lambda n: setattr(n, "op", _BINOP[type(n.op)]()))
        self.add(node, "augassign to assign",
                 lambda n: ast.Assign(targets=[n.target], value=n.value, lineno=n.lineno))
        self.generic_visit(node)

    def visit_Compare(self, node):
        for i, op in enumerate(node.ops):
            if type(op) in _CMP:
                self.add(node, f"compare {type(op).__name__}->{_CMP[type(op)].__name__}",
                         lambda n, i=i: n.ops.__setitem__(i, _CMP[type(n.ops[i])]()))
        self.generic_visit(node)

    def visit_BoolOp(self, node):
        other = ast.Or if isinstance(node.op, ast.And) else ast.And
        self.add(node, f"boolop ->{other.__name__}", lambda n: setattr(n, "op", other()))
        for i in range(len(node.values)):  # one operand dropped
            self.add(node, "boolop operand dropped",
                     lambda n, i=i: (n.values[:i] + n.values[i + 1:])[0]
                     if len(n.values) == 2 else setattr(n, "values", n.values[:i] + n.values[i + 1:]))
        self.generic_visit(node)

    def visit_UnaryOp(self, node):
        if isinstance(node.op, (ast.Not, ast.USub)):
            self.add(node, f"unary {type(node.op).__name__} dropped", lambda n: n.operand)
        self.generic_visit(node)

    def visit_Constant(self, node):
        v = node.value
        if isinstance(v, bool):
            self.add(node, "constant flipped", lambda n: setattr(n, "value", not n.value))
        elif isinstance(v, int):
            self.add(node, "constant +1", lambda n: setattr(n, "value", n.value + 1))
            self.add(node, "constant -1", lambda n: setattr(n, "value", n.value - 1))
        elif isinstance(v, float):
            self.add(node, "constant halved" if v else "constant 0.0->1.0",
                     lambda n: setattr(n, "value", n.value / 2 if n.value else 1.0))

    def visit_Call(self, node):
        f = node.func
        if isinstance(f, ast.Attribute) and not node.args and not node.keywords \
                and f.attr in _TRANSPARENT:
            self.add(node, f".{f.attr}() dropped", lambda n: n.func.value)
        if isinstance(f, ast.Attribute) and f.attr.endswith("_") and not f.attr.startswith("_") \
                and len(f.attr) > 1:
            self.add(node, f".{f.attr} out of place",
                     lambda n: setattr(n.func, "attr", n.func.attr[:-1]))
        if len(node.args) >= 2 and not any(isinstance(a, ast.Starred) for a in node.args[:2]):
            self.add(node, "arguments swapped",
                     lambda n: setattr(n, "args", [n.args[1], n.args[0], *n.args[2:]]))
        for i, kw in enumerate(node.keywords):
            if kw.arg:
                self.add(node, f"keyword {kw.arg}= dropped",
                         lambda n, i=i: n.keywords.pop(i))
        if isinstance(f, ast.Name) and f.id == "range" and len(node.args) == 1:
            self.add(node, "range shortened", lambda n: n.args.__setitem__(
                0, ast.BinOp(n.args[0], ast.Sub(), ast.Constant(1))))
        self.generic_visit(node)

    def visit_Attribute(self, node):
        if isinstance(node.value, ast.Name) and node.value.id == "torch" and node.attr in _NARROWER:
            self.add(node, f"torch.{node.attr}->{_NARROWER[node.attr]}",
                     lambda n: setattr(n, "attr", _NARROWER[n.attr]))
        self.generic_visit(node)

    def visit_Subscript(self, node):
        if isinstance(node.slice, ast.Slice):
            for part in ("lower", "upper"):
                if getattr(node.slice, part) is not None:
                    self.add(node, f"slice {part} bound dropped",
                             lambda n, p=part: setattr(n.slice, p, None))
        self.generic_visit(node)

    def _statements(self, body):
        for stmt in body:
            if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr)) and not (
                    isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)):
                self.add(stmt, "statement dropped", lambda n: ast.Pass(lineno=n.lineno))
            if isinstance(stmt, ast.Raise):
                self.add(stmt, "raise dropped", lambda n: ast.Pass(lineno=n.lineno))
            if isinstance(stmt, ast.Return) and stmt.value is not None:
                self.add(stmt, "returns None", lambda n: setattr(n, "value", None))

    def generic_visit(self, node):
        for field in ("body", "orelse", "finalbody"):
            body = getattr(node, field, None)
            if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
                self._statements(body)
        if isinstance(node, (ast.If, ast.While)) and not (
                isinstance(node.test, ast.UnaryOp) and isinstance(node.test.op, ast.Not)):
            self.add(node, "condition negated",
                     lambda n: setattr(n, "test", ast.UnaryOp(ast.Not(), n.test)))
        super().generic_visit(node)


def _replace(tree: ast.AST, target: ast.AST, new: ast.AST) -> None:
    for parent in ast.walk(tree):
        for field, value in ast.iter_fields(parent):
            if value is target:
                setattr(parent, field, new)
                return
            if isinstance(value, list) and any(v is target for v in value):
                setattr(parent, field, [new if v is target else v for v in value])
                return


def mutants(assignment: str, only: str = "") -> list[Mutant]:
    """Every mutant of the notebook's solution regions (of the cell ``only`` names), without
    duplicates or mutants whose code is the original's."""
    out, seen = [], set()
    for cell, region, code in regions(assignment):
        if only and cell != only:
            continue
        try:
            tree = ast.parse(code)
        except SyntaxError as exc:
            raise SystemExit(f"{assignment} {cell} region {region}: not Python ({exc})") from exc
        original = ast.unparse(tree)
        finder = _Sites()
        finder.visit(tree)
        for k in range(len(finder.sites)):
            changed = copy.deepcopy(tree)
            sites = _Sites()
            sites.visit(changed)
            node, name, make = sites.sites[k]
            result = make(node)
            if isinstance(result, ast.AST):
                _replace(changed, node, result)
            ast.fix_missing_locations(changed)
            try:
                text = ast.unparse(changed)
                compile(text, "<mutant>", "exec", dont_inherit=True,
                        flags=ast.PyCF_ONLY_AST | ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
            except (SyntaxError, ValueError, TypeError, AttributeError):
                continue
            if text == original or (cell, region, text) in seen:
                continue
            seen.add((cell, region, text))
            out.append(Mutant(assignment, cell, region, name, getattr(node, "lineno", 0), code, text))
    return out


def equivalents() -> dict[str, str]:
    """key -> reason, from tests/mutants/equivalent.txt ('<notebook> <key> <reason>' lines)."""
    found = {}
    if EQUIVALENT.exists():
        for n, line in enumerate(EQUIVALENT.read_text().splitlines(), 1):
            if not line.strip() or line.startswith("#"):
                continue
            parts = line.split(None, 2)
            if len(parts) < 3 or not re.fullmatch(r"[\w.]+:\d+:[0-9a-f]{10}", parts[1]):
                raise SystemExit(f"{EQUIVALENT}:{n}: expected '<notebook> <cell:region:digest> "
                                 f"<why this mutant is a correct answer>', got {line!r}")
            found[f"{parts[0]} {parts[1]}"] = parts[2]
    return found


def digest(assignment: str, cell: str, found: list[Mutant], equal: dict[str, str]) -> str:
    """What decides the verdicts on one region's mutants: the notebook's code cells (the answers
    and the tests, visible and hidden), the checks modules the notebook names, the region's
    mutants and the equivalents listed for them."""
    nb = nbformat.read(SOLUTIONS / assignment / f"{assignment}.ipynb", as_version=4)
    code = [c.source for c in nb.cells if c.cell_type == "code"]
    names = {"__init__"} | set(re.findall(r"labkit\.checks\.(\w+)", "\n".join(code)))
    h = hashlib.sha256()
    for part in [*code, *(f"{n}\n" + (LABKIT / "checks" / f"{n}.py").read_text()
                          for n in sorted(names) if (LABKIT / "checks" / f"{n}.py").exists())]:
        h.update(part.encode() + b"\0")
    for m in sorted((m for m in found if m.cell == cell), key=lambda m: m.key):
        h.update(f"{m.key} {equal.get(f'{assignment} {m.key}', '')}\0".encode())
    return h.hexdigest()[:16]


def read_scores() -> dict:
    return json.loads(SCORES.read_text()) if SCORES.exists() else {}


def record(assignment: str, found: list[Mutant], verdict: dict[str, bool], equal: dict[str, str],
           seconds: float) -> None:
    """Each graded region's score into scores.json (written whole, then renamed: a run killed
    half-way leaves the old record)."""
    scores = read_scores()
    mine = scores.setdefault(assignment, {})
    for cell in sorted({m.cell for m in found}):
        theirs = [m for m in found if m.cell == cell]
        listed = [m for m in theirs if f"{assignment} {m.key}" in equal]
        mine[cell] = {"digest": digest(assignment, cell, found, equal),
                      "mutants": len(theirs), "equivalent": len(listed),
                      "caught": sum(verdict[m.key] for m in theirs if m not in listed),
                      "survivors": sorted(m.key for m in theirs
                                          if not verdict[m.key] and m not in listed),
                      "measured": datetime.date.today().isoformat(),
                      "seconds": round(seconds), "machine": f"{os.cpu_count()} cores, "
                      f"Python {platform.python_version()}"}
    tmp = SCORES.with_suffix(".tmp")
    tmp.write_text(json.dumps(scores, indent=1, sort_keys=True) + "\n")
    tmp.replace(SCORES)


def problems(assignment: str) -> dict[str, str]:
    """cell -> what is wrong with its recorded score (nothing for a current, complete one)."""
    equal, found, scores = equivalents(), mutants(assignment), read_scores().get(assignment, {})
    out = {}
    for cell in dict.fromkeys(m.cell for m in found):
        got = scores.get(cell)
        if got is None:
            out[cell] = "no score recorded"
        elif got["digest"] != digest(assignment, cell, found, equal):
            out[cell] = f"the score recorded on {got['measured']} is of other code or tests"
        elif got["survivors"]:
            out[cell] = f"{len(got['survivors'])} mutant(s) survived: {', '.join(got['survivors'])}"
    return out


def grade(assignment: str, found: list[Mutant], seed: str | None = None) -> dict[str, bool]:
    """key -> caught (lost a point where it can reach), for each mutant."""
    from labkit.judge.reset import SEED_ENV
    from tests.harness import grade_all

    variants = [m.variant(n) for n, m in enumerate(found)]
    # controls: each region as the mutants are written (ast.unparse's layout), unchanged; it
    # must score full, or a verdict could come from the rewriting rather than the change
    controls = {(m.cell, m.region): Variant(assignment, f"control-{m.cell}-{m.region}", m.cell,
                                            [], ast.unparse(ast.parse(m.original)), m.region,
                                            full=True) for m in found}
    with tempfile.TemporaryDirectory(prefix=f"mutants-{assignment}-") as tmp:
        run = grade_all(assignment, Path(tmp), variants=variants + list(controls.values()),
                        solution_and_blank=False, timeout=7200,
                        env={SEED_ENV: seed} if seed else None)
        for control in controls.values():
            student, reach, _ = run.reach(control)
            lost = {c for c, (s, t) in run.scores.get(student, {}).items() if s < t and c in reach}
            if student not in run.scores or lost:
                raise SystemExit(f"{assignment}: the unchanged region {control.cell}:"
                                 f"{control.region} did not score full ({sorted(lost) or 'not graded'}); "
                                 f"no verdict on its mutants holds.\n{run.log[-3000:]}")
        verdict, again = {}, []
        for m, v in zip(found, variants):
            student, reach, _ = run.reach(v)
            if student not in run.scores or not run.ran_from_the_start(student):
                again.append((m, v))   # its unit never ran: a mutant before it broke the kernel
                continue
            verdict[m.key] = any(score < top for cell, (score, top) in run.scores[student].items()
                                 if cell in reach)
    for m, v in again:  # each alone, in a notebook of its own
        import dataclasses
        with tempfile.TemporaryDirectory(prefix=f"mutants-{assignment}-") as tmp:
            alone = dataclasses.replace(v, alone="graded again alone")
            run = grade_all(assignment, Path(tmp), variants=[alone], solution_and_blank=False,
                            timeout=3600, env={SEED_ENV: seed} if seed else None)
            student, reach, _ = run.reach(alone)
            scores = run.scores.get(student, {})
            verdict[m.key] = not scores or any(s < t for c, (s, t) in scores.items() if c in reach)
    return verdict


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="*", help="assignments (default: all of solutions/)")
    parser.add_argument("--only", default="", help="the grade id of one solution cell")
    parser.add_argument("--list", action="store_true", help="print the mutants, grade nothing")
    parser.add_argument("--seed", default=None, help="the grading seed (default: the variants')")
    parser.add_argument("--scores", action="store_true",
                        help="print the recorded scores and whether each is current; grade nothing")
    args = parser.parse_args(argv)
    chosen = chosen_notebooks(parser, args.notebooks)
    equal = equivalents()
    if args.scores:
        return print_scores(chosen)
    survived = 0
    for assignment in chosen:
        found = mutants(assignment, args.only)
        if args.list:
            for m in found:
                print(f"{assignment} {m.key}  {m.operator} (line {m.line})\n    "
                      + m.diff().replace("\n", "\n    "))
            print(f"{assignment}: {len(found)} mutants")
            continue
        start = time.monotonic()
        verdict = grade(assignment, found, args.seed)
        listed = [m for m in found if f"{assignment} {m.key}" in equal]
        live = [m for m in found if not verdict[m.key] and m not in listed]
        caught_listed = [m for m in listed if verdict[m.key]]
        judged = len(found) - len(listed)
        if not args.seed:   # the record is of the fixed seed the variants are graded with
            record(assignment, found, verdict, equal, time.monotonic() - start)
        print(f"{assignment}: mutation score {judged - len(live)}/{judged} "
              f"({100 * (judged - len(live)) / max(judged, 1):.1f}%), {len(listed)} listed as "
              f"equivalent, {time.monotonic() - start:.0f} s", flush=True)
        for m in live:
            print(f"  survived {assignment} {m.key}  {m.operator} (line {m.line})\n    "
                  + m.diff().replace("\n", "\n    "))
        for m in caught_listed:
            print(f"  listed as equivalent but caught: {assignment} {m.key} (drop its line)")
        survived += len(live)
    stale = [k for k in equal if k.split()[0] in chosen and not args.only
             and k.split()[1] not in {m.key for m in mutants(k.split()[0])}]
    for k in stale:
        print(f"  {EQUIVALENT.name} names {k}, which is no longer a mutant (drop its line)")
    return 1 if survived or stale else 0


def print_scores(chosen: list[str]) -> int:
    scores, bad = read_scores(), 0
    for assignment in chosen:
        wrong, rows = problems(assignment), scores.get(assignment, {})
        caught = sum(r["caught"] for r in rows.values())
        judged = sum(r["mutants"] - r["equivalent"] for r in rows.values())
        print(f"{assignment}: {caught}/{judged} recorded"
              + (f" ({100 * caught / judged:.1f}%)" if judged else ""))
        for cell in dict.fromkeys([*rows, *wrong]):
            r = rows.get(cell)
            line = (f"  {cell}: {r['caught']}/{r['mutants'] - r['equivalent']}, "
                    f"{r['equivalent']} equivalent, graded {r['measured']} (a run of {r['seconds']} s)"
                    if r else f"  {cell}:")
            print(line + (f"  <- {wrong[cell]}: make mutants NB={assignment} ONLY={cell}"
                          if cell in wrong else ""))
        bad += len(wrong)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
