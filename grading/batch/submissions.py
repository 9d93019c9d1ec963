"""Reading a class's submissions: a folder in nbgrader's layout or an LMS zip.

Folder layouts accepted (``<nb>`` is a notebook of the assignment, e.g. 00_getting_started):

    SUBMISSIONS/<student>/<assignment>/<nb>.ipynb     nbgrader's own layout
    SUBMISSIONS/<student>/<nb>.ipynb                  one folder per student

A zip either holds one of those layouts (the top folder of every member is the student
id), or flat files whose names carry the student id. The default file-name pattern is

    <student>_<anything><nb>.ipynb          e.g. ada_00_getting_started.ipynb,
                                                 ada_12345_67890_00_getting_started-1.ipynb

that is, the student id is the text before the first underscore, and the file is the
assignment's notebook whose name ends the file name (an LMS's "-1", "-2" resubmission
suffix is dropped). Another LMS: pass a regular expression with the named groups
``student_id`` and ``file_id`` (PATTERN= in make, --pattern here), matched against the
member's base name.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

DEFAULT_PATTERN = r"^(?P<student_id>[A-Za-z0-9][A-Za-z0-9.@-]*)_(?P<file_id>.+)$"
STUDENT_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@-]{0,99}$")
MAX_FILE_BYTES = 50 * 1024 * 1024
MAX_CELLS = 2000
IGNORED = {".ipynb_checkpoints", "__pycache__", "__MACOSX", ".DS_Store"}


class SubmissionsError(ValueError):
    """Bad SUBMISSIONS input; the message names the problem and the fix."""


@dataclass
class Imported:
    """What one student handed in: files by name, and notes for the instructor."""

    student: str
    files: dict[str, bytes] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    origins: dict[str, str] = field(default_factory=dict)  # file -> the name it came as

    def digest(self) -> str:
        h = hashlib.sha256()
        for name in sorted(self.files):
            h.update(name.encode() + b"\0" + hashlib.sha256(self.files[name]).digest())
        return h.hexdigest()


def _map_name(name: str, expected: list[str]) -> str | None:
    """The expected file a submitted file name stands for (exact, or ends with it), or None."""
    if name in expected:
        return name
    stem, dot, ext = name.rpartition(".")
    if dot:
        stem = re.sub(r"-\d+$", "", stem)  # LMS resubmission suffix: name-1.ipynb
        name = f"{stem}.{ext}"
    for want in sorted(expected, key=len, reverse=True):
        if name == want or name.endswith("_" + want) or name.endswith(want):
            return want
    return None


def _add(out: dict[str, Imported], student: str, name: str, data: bytes,
         expected: list[str], problems: list[str], origin: str | None = None) -> None:
    if not STUDENT_ID.match(student):
        problems.append(f"{student!r}: not a usable student id (letters, digits, . _ @ -); skipped")
        return
    sub = out.setdefault(student, Imported(student))
    if len(data) > MAX_FILE_BYTES:
        sub.notes.append(f"{name}: larger than {MAX_FILE_BYTES // 2**20} MB, ignored")
        return
    want = _map_name(name, expected)
    if want is None:
        if name.endswith(".ipynb"):
            sub.notes.append(f"{name}: not a notebook of this assignment, ignored")
            return
        want = name  # data files a learner may hand in alongside
    origin = origin or name
    if want in sub.files:
        first = sub.origins.get(want, want)
        problems.append(f"{student}: both {first} and {origin} stand for {want}; kept "
                        f"{first} (the first in the hand-in), ignored {origin}")
        sub.notes.append(f"{origin}: a second file for {want}, ignored (kept {first})")
        return
    sub.files[want] = data
    sub.origins[want] = origin


def read_folder(folder: Path, assignment: str, expected: list[str]) -> tuple[dict, list[str]]:
    """Students and their files from a folder in nbgrader's layout (or one folder per student)."""
    out: dict[str, Imported] = {}
    problems: list[str] = []
    for sdir in sorted(p for p in folder.iterdir() if p.is_dir() and p.name not in IGNORED):
        base = sdir / assignment if (sdir / assignment).is_dir() else sdir
        if sdir.is_symlink() or base.is_symlink():
            problems.append(f"{sdir.name}: the student's folder is a symbolic link (to "
                            f"{base.resolve()}), not a hand-in; skipped")
            continue
        out.setdefault(sdir.name, Imported(sdir.name)) if STUDENT_ID.match(sdir.name) else None
        for path in sorted(base.rglob("*")):
            rel = path.relative_to(base)
            if any(part in IGNORED for part in rel.parts):
                continue
            if path.is_symlink() or not path.is_file():
                if STUDENT_ID.match(sdir.name) and not path.is_dir():
                    out[sdir.name].notes.append(f"{rel.as_posix()}: not a regular file "
                                                "(a link, a pipe or a device), ignored")
                continue
            if rel.name == "timestamp.txt" and len(rel.parts) == 1:
                continue  # the submission time is the import's, never a handed-in file's
            _add(out, sdir.name, rel.as_posix(), path.read_bytes(), expected, problems)
    if not out:
        raise SubmissionsError(
            f"{folder}: no student folders found; expected {folder}/<student>/{assignment}/"
            f"<notebook>.ipynb (nbgrader's layout) or {folder}/<student>/<notebook>.ipynb")
    return out, problems


def read_zip(path: Path, assignment: str, expected: list[str],
             pattern: str | None = None) -> tuple[dict, list[str]]:
    """Students and their files from an LMS zip (see the module docstring for the names)."""
    try:
        zf = zipfile.ZipFile(path)
    except zipfile.BadZipFile:
        raise SubmissionsError(f"{path}: not a zip file; pass a folder or the zip your LMS "
                               "exported") from None
    try:
        regex = re.compile(pattern or DEFAULT_PATTERN)
    except re.error as exc:
        raise SubmissionsError(f"PATTERN {pattern!r} is not a regular expression ({exc})") from None
    if not {"student_id", "file_id"} <= set(regex.groupindex):
        raise SubmissionsError("PATTERN needs the named groups (?P<student_id>...) and "
                               "(?P<file_id>...)")
    out: dict[str, Imported] = {}
    problems: list[str] = []
    with zf:
        members = [m for m in zf.infolist() if not m.is_dir()
                   and not any(part in IGNORED for part in Path(m.filename).parts)]
        layered = pattern is None and members and all("/" in m.filename.strip("/")
                                                      for m in members)
        unmatched = []
        for m in members:
            parts = [p for p in m.filename.replace("\\", "/").split("/") if p]
            if ".." in parts or m.filename.startswith("/"):
                problems.append(f"{m.filename}: unsafe path in zip, skipped")
                continue
            if m.file_size > MAX_FILE_BYTES:
                problems.append(f"{m.filename}: larger than {MAX_FILE_BYTES // 2**20} MB, skipped")
                continue
            if layered:
                student, rest = parts[0], parts[1:]
                if rest and rest[0] == assignment and len(rest) > 1:
                    rest = rest[1:]
                name = "/".join(rest)
                if name == "timestamp.txt":
                    continue  # the submission time is the import's
            if m.external_attr >> 28 == 0o12:  # a symbolic link stored in the zip
                problems.append(f"{m.filename}: a symbolic link in the zip, skipped")
                continue
            else:
                match = regex.match(parts[-1])
                if not match:
                    unmatched.append(m.filename)
                    continue
                student, name = match.group("student_id"), match.group("file_id")
            _add(out, student, name, zf.read(m), expected, problems, origin=m.filename)
    if not out:
        shown = ", ".join(unmatched[:3]) or "(no files)"
        raise SubmissionsError(
            f"{path}: no student ids recognised in the zip's file names (e.g. {shown}); "
            f"expected <student>_<...>{expected[0] if expected else '<notebook>.ipynb'} or "
            "<student>/<notebook>.ipynb folders; for another LMS pass PATTERN='regex with "
            "(?P<student_id>...) and (?P<file_id>...)'")
    problems += [f"{name}: no student id in the file name, skipped" for name in unmatched]
    return out, problems


def read_submissions(source: Path, assignment: str, expected: list[str],
                     pattern: str | None = None) -> tuple[dict, list[str]]:
    """Students and their files from a folder or a zip."""
    source = Path(source)
    if not source.exists():
        raise SubmissionsError(f"SUBMISSIONS={source}: no such folder or zip; pass the folder "
                               "of student submissions or the zip your LMS exported")
    if source.is_dir():
        return read_folder(source, assignment, expected)
    return read_zip(source, assignment, expected, pattern)


def check_notebook(data: bytes, source_ids: dict[str, dict]) -> str | None:
    """Why a submitted notebook cannot be graded as it is (one line), or None if it can.

    ``source_ids`` maps each grade_id of the assignment's source notebook to its nbgrader
    metadata. Problems nbgrader would stop the whole batch on are caught here.
    """
    try:
        raw = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        return f"not valid JSON ({exc})"
    if not isinstance(raw, dict) or "cells" not in raw:
        return "JSON but not a notebook (no 'cells')"
    if isinstance(raw["cells"], list) and len(raw["cells"]) > MAX_CELLS:
        return (f"{len(raw['cells'])} cells, more than the {MAX_CELLS} a submission may have "
                "(the assignment has far fewer)")
    try:
        nb = nbformat.reads(data.decode("utf-8"), as_version=4)
        nbformat.validate(nb)
    except Exception as exc:  # noqa: BLE001 (nbformat raises many kinds)
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        return f"JSON but not a valid notebook ({first})"
    seen: dict[str, int] = {}
    for cell in nb.cells:
        meta = cell.get("metadata", {}).get("nbgrader")
        if not isinstance(meta, dict):
            continue
        gid = meta.get("grade_id")
        if gid is None:
            continue
        seen[gid] = seen.get(gid, 0) + 1
        want = source_ids.get(gid)
        if want is not None and meta.get("schema_version") != want.get("schema_version"):
            return (f"cell {gid}: nbgrader schema_version {meta.get('schema_version')!r} was "
                    f"edited (the assignment uses {want.get('schema_version')!r})")
    dups = sorted(g for g, n in seen.items() if n > 1)
    if dups:
        return f"grade id {', '.join(dups)} appears more than once (a duplicated cell)"
    return None


def structure_notes(data: bytes, source_ids: dict[str, dict]) -> list[str]:
    """What a readable submission changed in the assignment's graded cells, one line each.

    nbgrader grades such a notebook against the assignment's own cells (it puts back the
    originals and ignores what it does not know), so these are notes for the instructor
    and the student, not reasons to refuse it.
    """
    try:
        nb = nbformat.reads(data.decode("utf-8"), as_version=4)
    except Exception:  # noqa: BLE001 (check_notebook reports unreadable notebooks)
        return []
    notes, seen = [], set()
    for cell in nb.cells:
        meta = cell.get("metadata", {}).get("nbgrader")
        gid = meta.get("grade_id") if isinstance(meta, dict) else None
        if gid is None:
            continue
        seen.add(gid)
        want = source_ids.get(gid)
        if want is None:
            if meta.get("grade") or meta.get("solution"):
                notes.append(f"cell {gid}: not a cell of this assignment (added, or a grade id "
                             "renamed); it earns nothing")
            continue
        for flag, what in (("grade", "a test cell"), ("solution", "an answer cell"),
                           ("locked", "a read-only cell")):
            if bool(want.get(flag)) != bool(meta.get(flag)):
                was = what if want.get(flag) else f"not {what}"
                notes.append(f"cell {gid}: its nbgrader type was changed ({was} in the "
                             "assignment); graded as the assignment's cell")
                break
        else:
            if want.get("grade") and meta.get("points") != want.get("points"):
                notes.append(f"cell {gid}: its points were changed ({meta.get('points')!r}, the "
                             f"assignment gives {want.get('points')!r}); the assignment's count")
        if cell.cell_type != "code" and (want.get("grade") or want.get("solution")):
            notes.append(f"cell {gid}: turned into a {cell.cell_type} cell; graded as the "
                         "assignment's code cell")
    for gid in sorted(set(source_ids) - seen):
        if source_ids[gid].get("grade"):
            notes.append(f"cell {gid}: missing (deleted or renamed); the assignment's tests "
                         "were put back and run")
    return notes


def write_files(files: dict[str, bytes], dest: Path) -> None:
    """Replace ``dest`` with exactly ``files``, atomically (a temp folder, then a rename)."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(f".{dest.name}.tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    for name, data in files.items():
        path = tmp / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    old = dest.with_name(f".{dest.name}.old")
    shutil.rmtree(old, ignore_errors=True)
    if dest.exists():
        dest.rename(old)
    tmp.rename(dest)
    shutil.rmtree(old, ignore_errors=True)
