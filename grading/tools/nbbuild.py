"""Author a course notebook as a plain Python file, and turn it back.

    python grading/tools/nbbuild.py build  draft.py  solutions/NN_topic/NN_topic.ipynb
    python grading/tools/nbbuild.py export solutions/NN_topic/NN_topic.ipynb > draft.py

The .ipynb in solutions/ stays the one source; the .py form is a convenient way to edit
it in any editor. Cells start with a marker line:

    # %% [markdown]                       markdown; every line starts with "# " or is "#"
    # %%                                  an ordinary code cell
    # %% [solution] id=split_batch        graded solution cell (### BEGIN/END SOLUTION inside)
    # %% [tests] id=test_split points=2   autograded test cell (may hold hidden tests)
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import nbformat

SCHEMA_VERSION = 3
_MARKER = re.compile(r"^# %%(?: \[(markdown|solution|tests)\])?((?: \w+=\S+)*)\s*$")

KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
LANGUAGE_INFO = {"name": "python", "version": "3.11", "file_extension": ".py",
                 "mimetype": "text/x-python", "pygments_lexer": "ipython3",
                 "codemirror_mode": {"name": "ipython", "version": 3},
                 "nbconvert_exporter": "python"}


class DraftError(ValueError):
    """A draft file that cannot become a notebook; the message names the line."""


def _nbgrader(kind: str, attrs: dict, where: str) -> dict:
    grade_id = attrs.get("id")
    if not grade_id:
        raise DraftError(f"{where}: a [{kind}] cell needs id=<grade_id>")
    if kind == "solution":
        return {"grade": False, "grade_id": grade_id, "locked": False,
                "schema_version": SCHEMA_VERSION, "solution": True, "task": False}
    try:
        points = float(attrs.get("points", ""))
    except ValueError:
        raise DraftError(f"{where}: a [tests] cell needs points=<number>") from None
    points = int(points) if points.is_integer() else points
    return {"grade": True, "grade_id": grade_id, "locked": True, "points": points,
            "schema_version": SCHEMA_VERSION, "solution": False, "task": False}


def build(text: str, name: str = "draft") -> nbformat.NotebookNode:
    """Turn the text of a draft .py file into a notebook."""
    nb = nbformat.v4.new_notebook()
    nb.metadata = {"kernelspec": dict(KERNELSPEC), "language_info": dict(LANGUAGE_INFO)}
    current = None
    seen_ids: set[str] = set()
    for lineno, line in enumerate(text.splitlines(), 1):
        m = _MARKER.match(line)
        if m:
            kind = m.group(1) or "code"
            attrs = dict(a.split("=", 1) for a in m.group(2).split())
            current = {"kind": kind, "attrs": attrs, "lines": [], "where": f"{name}:{lineno}"}
            nb.cells.append(current)
            continue
        if current is None:
            if line.strip():
                raise DraftError(f"{name}:{lineno}: text before the first '# %%' marker")
            continue
        current["lines"].append(line)
    cells = []
    for index, raw in enumerate(nb.cells):
        lines = raw["lines"]
        while lines and not lines[-1].strip():
            lines.pop()
        if raw["kind"] == "markdown":
            body = []
            for ln in lines:
                if ln == "#" or ln.startswith("# "):
                    body.append(ln[2:])
                elif not ln.strip():
                    body.append("")
                else:
                    raise DraftError(f"{raw['where']}: markdown line without '# ': {ln!r}")
            cell = nbformat.v4.new_markdown_cell("\n".join(body))
        else:
            cell = nbformat.v4.new_code_cell("\n".join(lines))
            if raw["kind"] in ("solution", "tests"):
                cell.metadata["nbgrader"] = _nbgrader(raw["kind"], raw["attrs"], raw["where"])
        grade_id = raw["attrs"].get("id")
        cell_id = grade_id or f"cell-{index:03d}"
        if cell_id in seen_ids:
            raise DraftError(f"{raw['where']}: id {cell_id!r} is used twice")
        seen_ids.add(cell_id)
        cell.id = cell_id
        cells.append(cell)
    nb.cells = cells
    nbformat.validate(nb)
    return nb


def export(nb: nbformat.NotebookNode) -> str:
    """Turn a notebook into the draft .py form (the inverse of ``build``)."""
    out = []
    for index, cell in enumerate(nb.cells):
        meta = cell.metadata.get("nbgrader", {})
        # a cell's id is kept where build would not give it again (build numbers the others)
        own = cell.get("id", "")
        keep = f" id={own}" if own and own != f"cell-{index:03d}" and not meta.get("grade_id") else ""
        if cell.cell_type == "markdown":
            out.append(f"# %% [markdown]{keep}")
            out.extend(("# " + ln) if ln else "#" for ln in cell.source.splitlines())
        elif meta.get("solution"):
            out.append(f"# %% [solution] id={meta['grade_id']}")
            out.append(cell.source)
        elif meta.get("grade"):
            out.append(f"# %% [tests] id={meta['grade_id']} points={meta.get('points', 0)}")
            out.append(cell.source)
        else:
            out.append(f"# %%{keep}")
            out.append(cell.source)
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def main(argv: list[str]) -> int:
    if len(argv) == 3 and argv[0] == "build":
        src, dest = Path(argv[1]), Path(argv[2])
        try:
            nb = build(src.read_text(), name=str(src))
        except (OSError, DraftError) as exc:
            print(f"nbbuild: {exc}", file=sys.stderr)
            return 1
        dest.parent.mkdir(parents=True, exist_ok=True)
        tmp = dest.with_suffix(".ipynb.tmp")
        nbformat.write(nb, str(tmp))
        tmp.replace(dest)  # never leave a half-written notebook
        print(f"wrote {dest} ({len(nb.cells)} cells)")
        return 0
    if len(argv) == 2 and argv[0] == "export":
        try:
            nb = nbformat.read(argv[1], as_version=4)
        except Exception as exc:
            print(f"nbbuild: cannot read {argv[1]}: {exc}", file=sys.stderr)
            return 1
        sys.stdout.write(export(nb))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
