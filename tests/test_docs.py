"""Every command and path the docs name exists: in README.md, docs/*.md and
tests/redteam/README.md, each `make <target>` is a target of the Makefile, each repository
path in code (`grading/tools/release.py`, `tests/redteam/...`) or in a link exists, each
`labkit.x` / `grading.x` names a module (and the name after it is defined there), a file
named alone (`release.py` in the layout's `grading/` row) is in a folder named before it, and
each relative link reaches a file and, with #anchor, one of its headings. Reads files only."""

from __future__ import annotations

import ast
import functools
import glob
import re
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md")), REPO / "tests/redteam/README.md"]

# What the docs name but the repository does not hold, each with why. Every entry of
# GENERATED must be git-ignored (test_allowed_paths_are_git_ignored), so none can hide a
# tracked path that went stale.
GENERATED = {
    "work/": "the learner's copy of notebooks/, made by make lab",
    ".venv": "the virtual environments make creates (.venv, .venv312, .venv313)",
    "grading/submitted": "make autograde's working folder",
    "grading/autograded": "make autograde's working folder",
    "grading/feedback": "the feedback make autograde writes",
    "grading/gradebook.db": "the gradebook make autograde writes",
    "grading/grades.csv": "nbgrader export's CSV, written by make autograde",
    "grading/reports": "the reports make autograde writes",
    "grading/hub/state": "make hub's secrets",
    "grading/hub/collected": "what grading/hub/exchange.py collect copies in",
    "test-artifacts/": "the browser tests' screenshots",
}
PLACEHOLDERS = {
    "path/to/notebook.ipynb": "make validate's NB= stands for any notebook",
    "draft.py": "the file an instructor exports a notebook into to edit it",
    "timestamp.txt": "a file in a student's hand-in, which the import ignores",
}
# Also not checked: absolute paths and ~ (the machine's, a user's home: /usr/bin/chromium,
# /home/<name>), $VARIABLES, URLs, and paths that start with <a placeholder> (inside a folder
# the reader names: SUBMISSIONS' <student>/<nb>.ipynb). In a path, <anything> and NN
# (NN_topic, NN_name) are wildcards that must match something; a path whose first part is a
# notebook's name is looked for in notebooks/ (a learner's JupyterLab serves work/, a copy).

FILE_EXT = re.compile(r"\.(py|md|ipynb|toml|ya?ml|json|txt|cfg|sh|lock)$")
FENCE = re.compile(r"^\s*```")


def _split(text: str) -> tuple[str, list[str]]:
    """(the text outside fenced code blocks, the lines inside them)."""
    prose, code, inside = [], [], False
    for line in text.splitlines():
        if FENCE.match(line):
            inside = not inside
            continue
        (code if inside else prose).append(line)
    return "\n".join(prose), code


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(text: str) -> set[str]:
    prose, _ = _split(text)
    seen: dict[str, int] = {}
    out = set()
    for m in re.finditer(r"^#{1,6}\s+(.+?)\s*#*\s*$", prose, re.M):
        s = slug(m.group(1))
        out.add(s if s not in seen else f"{s}-{seen[s]}")
        seen[s] = seen.get(s, 0) + 1
    return out


@functools.cache
def make_targets() -> frozenset[str]:
    targets = set()
    for line in (REPO / "Makefile").read_text().splitlines():
        m = re.match(r"^([^\s#:=][^:=]*?)\s*:(?!=)", line)
        if m:
            targets.update(m.group(1).split())
    return frozenset(targets)


@functools.cache
def notebook_names() -> frozenset[str]:
    return frozenset(p.name for p in (REPO / "notebooks").iterdir() if p.is_dir())


def _exists(path: str) -> bool:
    pattern = re.sub(r"<[^>/]*>", "*", path)
    pattern = re.sub(r"\bNN(_[a-z]+)?\b", "[0-9][0-9]*", pattern)
    for base in (REPO, REPO / "notebooks"):
        if base != REPO and pattern.split("/")[0] not in notebook_names():
            continue
        if glob.glob(str(base / pattern.rstrip("/"))):
            return True
    return False


def _module_names(dotted: str) -> str | None:
    """Why `labkit.a.b` / `grading.a.b` names nothing, or None."""
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        base = REPO.joinpath(*parts[:i])
        source = base / "__init__.py" if base.is_dir() else base.with_suffix(".py")
        if source.is_file():
            break
    else:
        return f"no module {dotted}"
    if i == len(parts):
        return None
    tree = ast.parse(source.read_text())
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            for t in node.targets if isinstance(node, ast.Assign) else [node.target]:
                names.update(n.id for n in ast.walk(t) if isinstance(n, ast.Name))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    if parts[i] in names:
        return None
    return f"{'.'.join(parts[:i])} defines no {parts[i]} ({dotted})"


def _path_problem(token: str, folders: list[str]) -> str | None:
    """Why ``token`` names no repository path or module, or None. A name alone (`release.py`,
    `hub/`) is looked for in the folders of the paths named before it in the same file (a
    layout table's `grading/` row, `benchmarks/` scripts), whose list grows here."""
    token = token.lstrip("([{'\"").rstrip(")]},;:.'\"").split("=", 1)[-1].strip("'\"")
    if (not token or token.startswith(("/", "~", "$", "-", "<")) or "://" in token
            or "..." in token):
        return None
    dotted = re.match(r"^((?:labkit|grading)(?:\.\w+)+)", token)
    if dotted and "/" not in token:
        return _module_names(dotted.group(1))
    if "/" not in token and not FILE_EXT.search(token):
        return None
    if not re.fullmatch(r"[\w.<>/*-]+", token):
        return None
    if token in PLACEHOLDERS or token.startswith(tuple(GENERATED)):
        return None
    if "/" not in token.rstrip("/"):
        found = next((f for f in folders if _exists(f + token)), None)
        if found is None:
            return f"no {token} in the folders named before it ({', '.join(folders[1:])})"
        token = found + token
    elif not _exists(token):
        return f"no {token} in the repository"
    folder = token if token.endswith("/") else token.rpartition("/")[0] + "/"
    if folder != "/" and folder not in folders:
        folders.append(folder)
    return None


def _snippets(text: str):
    """The code of a markdown file in order: its inline code spans and its code blocks' lines."""
    prose: list[str] = []
    inside = False
    for line in text.splitlines() + ["```"]:
        if FENCE.match(line):
            if not inside:
                yield from (re.sub(r"\s+", " ", s) for s in re.findall(r"`([^`]+)`", "\n".join(prose)))
                prose = []
            inside = not inside
        elif inside:
            yield line
        else:
            prose.append(line)


def problems(doc: Path, text: str) -> list[str]:
    out = []
    folders = [""]  # the repository's root, then every folder named so far
    for snippet in _snippets(text):
        for m in re.finditer(r"(?:^|[\s;&|(])make\s+(?:[A-Z_]+=\S*\s+)*([a-z][\w.-]*)", snippet):
            if m.group(1) not in make_targets():
                out.append(f"make {m.group(1)}: no such target in the Makefile")
        for token in snippet.split():
            why = _path_problem(token, folders)
            if why:
                out.append(why)
    prose, _ = _split(text)
    for target in re.findall(r"\[[^\]]*\]\(([^)\s]+)\)", prose):
        if re.match(r"^[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        if not path:
            if anchor not in anchors(text):
                out.append(f"link to {target}: no such heading here")
            continue
        dest = (doc.parent / path).resolve()
        if not dest.exists() or REPO not in dest.parents:
            out.append(f"link to {target}: no such file in the repository")
        elif anchor and (dest.suffix != ".md" or anchor not in anchors(dest.read_text())):
            out.append(f"link to {target}: no heading #{anchor} in {dest.relative_to(REPO)}")
    return out


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(REPO)))
def test_every_command_path_and_link_the_docs_name_exists(doc):
    assert problems(doc, doc.read_text()) == []


def test_made_up_commands_paths_and_links_are_reported():
    doc = REPO / "docs" / "made_up.md"
    text = ("# Made up\n\nRun `make no-such-target`, then `.venv/bin/python grading/no_such_tool.py"
            " NN_topic`; see `tests/redteam/<NN_name>/no_such_trick.py`, `labkit.no_such_module`,"
            " `labkit.judge.session.no_such_name`, [the trust model](trust.md#no-such-heading) and"
            " [a page](no_such_page.md).\n\n```bash\nmake lab && make no-such-verb\n```\n"
            "[here](#made-up) and `grading/reports/<assignment>/grades.csv` are fine; `benchmarks/`"
            " holds `grading_scale.py` but not `no_such_bench.py`.\n")
    assert problems(doc, text) == [
        "make no-such-target: no such target in the Makefile",
        "no grading/no_such_tool.py in the repository",
        "no tests/redteam/<NN_name>/no_such_trick.py in the repository",
        "labkit defines no no_such_module (labkit.no_such_module)",
        "labkit.judge.session defines no no_such_name (labkit.judge.session.no_such_name)",
        "make no-such-verb: no such target in the Makefile",
        "no no_such_bench.py in the folders named before it (benchmarks/)",
        "link to trust.md#no-such-heading: no heading #no-such-heading in docs/trust.md",
        "link to no_such_page.md: no such file in the repository",
    ]


def test_allowed_paths_are_git_ignored():
    """What the allow-list lets the docs name without its existing is what make writes and git
    ignores; a tracked path can never hide behind it."""
    probe = {p: (p.rstrip("/"), p.rstrip("/") + "/x") for p in GENERATED}  # a file, a folder
    ignored = set(subprocess.run(["git", "check-ignore", "--no-index", *sum(probe.values(), ())],
                                 cwd=REPO, capture_output=True, text=True).stdout.split())
    assert [p for p, paths in probe.items() if not ignored & set(paths)] == []


def test_headings_anchor_as_github_makes_them():
    assert anchors("# A\n## 1. Edit the solutions\n## The course's JupyterLab\n## A\n"
                   "```\n# not a heading\n```\n") == {
        "a", "1-edit-the-solutions", "the-courses-jupyterlab", "a-1"}
