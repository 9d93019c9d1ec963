"""The harness's own pieces: variant files and injection into solution regions."""

import nbformat
import pytest

from tests.harness import Variant, inject, load_variants


def _nb(source):
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell(source)
    cell.metadata["nbgrader"] = {"grade_id": "f", "solution": True, "grade": False}
    nb.cells = [cell]
    return nb


SOURCE = """def f(x):
    ### BEGIN SOLUTION
    return x + 1
    ### END SOLUTION

def g(x):
    ### BEGIN SOLUTION
    return x * 2
    ### END SOLUTION"""


def test_inject_replaces_the_named_region_at_its_indentation():
    out = inject(_nb(SOURCE), Variant("a", "v", "f", [], "y = x\nreturn y - 1", region=2))
    src = out.cells[0].source
    assert "    y = x\n    return y - 1" in src and "return x + 1" in src and "x * 2" not in src
    first = inject(_nb(SOURCE), Variant("a", "v", "f", [], "return 0"))
    assert "    return 0" in first.cells[0].source and "x * 2" in first.cells[0].source


@pytest.mark.parametrize("variant,match", [
    (Variant("a", "v", "nope", [], "pass"), "no cell with grade_id 'nope'"),
    (Variant("a", "v", "f", [], "pass", region=3), "has 2 solution regions"),
])
def test_inject_names_what_is_wrong(variant, match):
    with pytest.raises(ValueError, match=match):
        inject(_nb(SOURCE), variant)


def test_load_variants_reads_headers(tmp_path, monkeypatch):
    import tests.harness as harness

    folder = tmp_path / "nb"
    folder.mkdir()
    (folder / "off_by_one.py").write_text("# cell: f\n# region: 2\n# loses: t1 t2\nreturn x\n")
    (folder / "bad.py").write_text("return x\n")
    monkeypatch.setattr(harness, "VARIANTS", tmp_path)
    with pytest.raises(ValueError, match="# cell: <grade_id>"):
        load_variants("nb")
    (folder / "bad.py").unlink()
    [v] = load_variants("nb")
    assert (v.cell, v.region, v.loses, v.code, v.student) == ("f", 2, ["t1", "t2"], "return x",
                                                               "wrong-off_by_one")


def test_load_variants_reads_correct_alternatives(tmp_path, monkeypatch):
    import tests.harness as harness

    folder = tmp_path / "nb"
    folder.mkdir()
    (folder / "d2l_style.py").write_text("# cell: f\n# scores: full\nreturn x + 1\n")
    monkeypatch.setattr(harness, "VARIANTS", tmp_path)
    [v] = load_variants("nb")
    assert (v.full, v.loses, v.student) == (True, [], "right-d2l_style")
    (folder / "d2l_style.py").write_text("# cell: f\n# scores: full\n# loses: t1\nreturn 1\n")
    with pytest.raises(ValueError, match="loses nothing"):
        load_variants("nb")
    (folder / "d2l_style.py").write_text("# cell: f\n# scores: most\nreturn 1\n")
    with pytest.raises(ValueError, match="takes only 'full'"):
        load_variants("nb")
