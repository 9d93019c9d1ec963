"""A learner's working copy (``work/``): what ``make lab`` opens, never the release.

    python grading/tools/workcopy.py ensure [--work work]            # make lab runs this first
    python grading/tools/workcopy.py reset NN_topic [--cell GRADE_ID] [--work work]
    make reset NB=01_async_execution [CELL=grade_id]

``notebooks/`` is the release (generated from solutions/, committed); a learner answers in
``work/`` (git-ignored), which ``ensure`` creates from notebooks/ on the first ``make lab``
and afterwards only completes with assignments it does not have yet: a learner's work is
kept across runs. ``reset`` puts one notebook, or one exercise of it (the cell with that
nbgrader grade_id), back to its released state, generated afresh from solutions/; the rest
of the working copy is untouched and the replaced notebook is kept in
``work/NN_topic/.reset/`` first.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

import nbformat

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from grading.course import NOTEBOOKS, REPO, SOLUTIONS, assignments, generate  # noqa: E402

WORK = REPO / "work"


class WorkError(RuntimeError):
    """A request that cannot be done; the message names the fix."""


def learner_version(solutions: Path, assignment: str, dest: Path) -> Path:
    """The learner version of ``assignment`` generated from ``solutions`` into
    ``dest``/notebooks/<assignment> (a scratch course there: no gradebook is touched)."""
    shutil.copytree(solutions / assignment, dest / "solutions" / assignment,
                    ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__"))
    (dest / "grading").mkdir(parents=True, exist_ok=True)
    return generate(assignment, dest, db_url=f"sqlite:///{dest / 'grading' / 'gradebook.db'}")


def ensure(work: Path = WORK, release: Path = NOTEBOOKS) -> list[str]:
    """Copy into ``work`` every assignment of ``release`` it does not hold; returns those."""
    work.mkdir(parents=True, exist_ok=True)
    added = []
    for folder in sorted(p for p in release.iterdir() if p.is_dir() and not p.name.startswith(".")):
        if not (work / folder.name).exists():
            shutil.copytree(folder, work / folder.name,
                            ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
            added.append(folder.name)
    return added


def _name(nb: str) -> str:
    name = Path(nb).stem if nb.endswith(".ipynb") else Path(nb).name
    known = assignments(SOLUTIONS)
    if name not in known:
        raise WorkError(f"no notebook {nb!r}: use one of {', '.join(known)}, e.g. "
                        f"make reset NB={known[0] if known else 'NN_topic'}")
    return name


def _grade_id(cell) -> str | None:
    return cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")


def _key(cell) -> str | None:
    """A cell's identity across versions: its grade_id, else its nbformat id."""
    return _grade_id(cell) or cell.get("id")


def reset(nb: str, cell: str | None = None, work: Path = WORK,
          solutions: Path = SOLUTIONS) -> str:
    """Put notebook ``nb`` (or its cell ``cell``) of ``work`` back to its released state."""
    name = _name(nb)
    target = work / name / f"{name}.ipynb"
    with tempfile.TemporaryDirectory(prefix="reset-") as tmp:
        released = learner_version(solutions, name, Path(tmp)) / f"{name}.ipynb"
        fresh = nbformat.read(released, as_version=4)
        if not target.is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            nbformat.write(fresh, target)
            return f"{target.relative_to(work.parent)}: created in its released state"
        mine = nbformat.read(target, as_version=4)
        backup = target.parent / ".reset" / f"{name}.{time.strftime('%Y%m%d-%H%M%S')}.ipynb"
        if cell is None:
            backup.parent.mkdir(exist_ok=True)
            shutil.copy2(target, backup)
            nbformat.write(fresh, target)
            return (f"{target.relative_to(work.parent)}: reset to its released state (your "
                    f"version is in {backup.relative_to(work.parent)})")
        ids = [_grade_id(c) for c in fresh.cells]
        if cell not in ids:
            graded = [i for i in ids if i]
            raise WorkError(f"{name} has no cell with grade_id {cell!r}; its cells are: "
                            f"{', '.join(graded)}")
        at = ids.index(cell)
        new = fresh.cells[at]
        here = [_grade_id(c) for c in mine.cells]
        if cell in here:
            mine.cells[here.index(cell)] = new
            what = "reset"
        else:  # the learner deleted it: back after the cell that precedes it in the release
            keys = [_key(c) for c in mine.cells]
            before = next((_key(fresh.cells[i]) for i in range(at - 1, -1, -1)
                           if _key(fresh.cells[i]) in keys), None)
            mine.cells.insert(keys.index(before) + 1 if before else 0, new)
            what = "put back"
        backup.parent.mkdir(exist_ok=True)
        shutil.copy2(target, backup)
        nbformat.write(mine, target)
    return (f"{target.relative_to(work.parent)}: cell {cell} {what} in its released state, "
            f"the rest kept (your version is in {backup.relative_to(work.parent)})")


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="step", required=True)
    e = sub.add_parser("ensure", help="create or complete the working copy from notebooks/")
    e.add_argument("--work", type=Path, default=WORK)
    r = sub.add_parser("reset", help="one notebook, or one exercise of it, back to released")
    r.add_argument("nb", help="NN_topic (or a path to its notebook)")
    r.add_argument("--cell", default=None, help="the exercise's nbgrader grade_id")
    r.add_argument("--work", type=Path, default=WORK)
    args = p.parse_args(argv)
    try:
        if args.step == "ensure":
            added = ensure(args.work.resolve())
            if added:
                print(f"your working copy {args.work}/: added {', '.join(added)} from notebooks/")
        else:
            if not args.nb:
                raise WorkError("name the notebook: make reset NB=NN_topic [CELL=grade_id]")
            print(reset(args.nb, args.cell or None, args.work.resolve()))
    except WorkError as exc:
        print(f"reset: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
