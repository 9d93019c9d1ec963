"""The harness's own pieces: variant files and injection into solution regions."""

import nbformat
import pytest

from tests.harness import CellGraph, Variant, _unit_cells, bundle, inject, load_variants


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


def _cells(*specs):
    """A notebook from (source, nbgrader metadata or None) pairs."""
    nb = nbformat.v4.new_notebook()
    for source, meta in specs:
        cell = nbformat.v4.new_code_cell(source)
        if meta:
            cell.metadata["nbgrader"] = meta
        nb.cells.append(cell)
    return nb


def _answer(gid):
    return {"grade_id": gid, "solution": True, "grade": False}


def _test(gid):
    return {"grade_id": gid, "solution": False, "grade": True, "points": 1}


GRAPH_NB = [
    ("import torch\nSCALE = 2", None),                                    # 0 set-up
    ("def f(x):\n    ### BEGIN SOLUTION\n    return x\n    ### END SOLUTION", _answer("f")),
    ("import torch\nassert f(1) == 1", _test("test_f")),                  # 2
    ("def g(x):\n    ### BEGIN SOLUTION\n    return x\n    ### END SOLUTION", _answer("g")),
    ("def twice(x):\n    return g(g(x))", None),                          # 4 reads g when called
    ("assert twice(1) == 1", _test("test_g")),                            # 5
    ("plot = [f(i) for i in range(3)]", None),                            # 6 a demo nothing reads
    ("def h(x):\n    ### BEGIN SOLUTION\n    return x\n    ### END SOLUTION", _answer("h")),
    ("assert h(1) == 1\nassert f(2) == 2", _test("test_h")),              # 8 reads f and h
]


def test_cell_graph_follows_names_not_imports():
    graph = CellGraph(_cells(*GRAPH_NB))
    assert graph.downstream("f") == {1, 2, 6, 8}       # test_f's 'import torch' carries nothing
    assert graph.downstream("g") == {3, 4, 5}          # through the helper that calls g
    assert graph.kept == [0, 1, 2, 3, 4, 5, 7, 8]    # the demo nothing reads is dropped


def test_a_bundle_keeps_only_the_cells_its_tests_need():
    graph = CellGraph(_cells(*GRAPH_NB))
    assert graph.kept_for(graph.downstream("g")) == [0, 3, 4, 5]    # f's and h's cells go
    assert graph.kept_for(graph.downstream("f")) == [0, 1, 2, 7, 8]  # test_h also reads h
    # a name only a left-out cell imports comes with that cell
    nb = _cells(("SCALE = 2", None),
                ("def f(x):\n    ### BEGIN SOLUTION\n    return math.sqrt(x)\n    ### END SOLUTION",
                 _answer("f")),
                ("import math\nassert f(4) == 2", _test("test_f")),
                ("def g(x):\n    ### BEGIN SOLUTION\n    return x\n    ### END SOLUTION", _answer("g")),
                ("assert g(1) == f(1)", _test("test_g")))
    graph = CellGraph(nb)
    assert graph.kept_for(graph.downstream("g")) == [0, 1, 2, 3, 4]


def test_a_bundle_keeps_the_cells_a_variants_own_code_reads():
    """An answer that calls another exercise's function, which the solution's answer does not
    call (a correct answer written another way), keeps that function's cell (it lost with a
    NameError, graded as wrong, before)."""
    graph = CellGraph(_cells(*GRAPH_NB))
    assert 1 not in graph.kept_for(graph.downstream("g"))
    assert graph.kept_for(graph.downstream("g"), {"f"}) == [0, 1, 3, 4, 5]


def test_units_packed_in_one_notebook_keep_apart_grade_ids_and_cell_ids():
    nb = _cells(*GRAPH_NB)
    nb.cells[2]["id"] = "x" * 64                     # the longest id nbformat allows
    packed = nbformat.v4.new_notebook()
    packed.cells = _unit_cells(nb, [0, 1, 2], "u00") + _unit_cells(nb, [0, 1, 2], "u01")
    nbformat.validate(packed)                        # ids unique, of allowed length
    gids = [c.metadata.get("nbgrader", {}).get("grade_id") for c in packed.cells]
    assert gids == [None, "f__u00", "test_f__u00", None, "f__u01", "test_f__u01"]
    assert nb.cells[1].metadata["nbgrader"]["grade_id"] == "f"   # the source is untouched


def test_a_cell_reading_globals_by_name_sees_everything():
    nb = _cells(*GRAPH_NB, ("assert globals()['g'](3) == 3", _test("test_dynamic")))
    assert 9 in CellGraph(nb).downstream("f") and 9 in CellGraph(nb).downstream("g")


def test_bundles_never_share_a_test_cell():
    graph = CellGraph(_cells(*GRAPH_NB))
    wrong = [Variant("a", f"{c}{k}", c, [f"test_{c}"], "return 0") for c in "fgh" for k in (1, 2)]
    right = Variant("a", "g_alt", "g", [], "return x * 1", full=True)
    groups = bundle(graph, wrong + [right])
    names = [sorted(v.name for v in group) for group in groups]
    # f and h both reach test_h: never together; g reaches neither, so it shares with them;
    # the correct alternative shares only with a variant whose cells it cannot reach at all
    assert names == [["f1", "g1"], ["f2", "g2"], ["g_alt", "h1"], ["h2"]]
    lone = Variant("a", "far", "g", ["test_f"], "return 0")   # names a cell it cannot reach
    assert [lone] in bundle(graph, [lone, *wrong[:1]])


def test_a_variant_may_replace_several_regions(tmp_path, monkeypatch):
    import tests.harness as harness

    folder = tmp_path / "nb"
    folder.mkdir()
    (folder / "both.py").write_text("# cell: f\n# region: 1\n# loses: t1\nreturn 0\n"
                                    "# region: 2\ny = x\nreturn y - 1\n")
    monkeypatch.setattr(harness, "VARIANTS", tmp_path)
    [v] = load_variants("nb")
    assert (v.region, v.code, v.more) == (1, "return 0", ((2, "y = x\nreturn y - 1"),))
    src = inject(_nb(SOURCE), v).cells[0].source
    assert "    return 0" in src and "    y = x\n    return y - 1" in src
    assert "x + 1" not in src and "x * 2" not in src and "BEGIN SOLUTION" not in src


def test_the_set_up_cell_is_the_first_code_cell_after_colabs():
    """Variants' trimmed notebooks keep the set-up cell: the first code cell other than the
    Colab cell (grading/tools/colab.py), even where every name it imports is imported again later."""
    from grading.tools.colab import CELL_ID, setup_cell_source

    colab = nbformat.v4.new_code_cell(setup_cell_source())
    colab.id = CELL_ID
    setup = nbformat.v4.new_code_cell("import math")
    answer = nbformat.v4.new_code_cell("TAU = 2 * math.pi")
    answer.metadata["nbgrader"] = {"grade_id": "tau", "solution": True, "grade": False}
    test = nbformat.v4.new_code_cell("import math\nassert TAU == math.tau")
    test.metadata["nbgrader"] = {"grade_id": "test_tau", "solution": False, "grade": True}
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# t"), colab, setup, answer, test]
    graph = CellGraph(nb)
    assert {2, 3, 4} <= set(graph.kept_for(graph.downstream("tau"))), graph.kept_for({3, 4})
