"""make mutants and make catch-rate: the mutants made, the equivalents read, and verdicts that can go
both ways (a wrong mutant caught, a correct one reported as a survivor)."""

from __future__ import annotations

import ast
import dataclasses

import pytest

from grading.course import assignments
from tests import mutants as mut


@pytest.mark.parametrize("assignment", assignments())
def test_every_region_gives_mutants_that_differ_and_compile(assignment):
    found = mut.mutants(assignment)
    assert found, f"{assignment}: no mutants made"
    originals = {(m.cell, m.region): ast.unparse(ast.parse(m.original)) for m in found}
    assert {(c, r) for c, r, _ in mut.regions(assignment)} == set(originals), (
        "a solution region gave no mutant")
    for m in found:
        assert m.code != originals[(m.cell, m.region)], m.key
        compile(m.code, m.key, "exec", flags=ast.PyCF_ONLY_AST)
    assert len({m.key for m in found}) == len(found), "two mutants share a key"


def test_operators_cover_what_learners_get_wrong():
    """Each kind of slip the mutants stand for is made on 00's tensor_nbytes / transfer_time:
    arithmetic, a boundary, a dropped statement, a dropped check, a changed constant."""
    kinds = {m.operator.split()[0] for m in mut.mutants("00_getting_started")}
    assert {"binop", "compare", "statement", "raise", "constant", "augassign", "returns"} <= kinds


# Notebooks whose regions have not all been graded yet: each is listed here until
# `make mutants NB=<it>` has recorded every region; the rest must hold their record.
NOT_YET_MEASURED: set[str] = set()


@pytest.mark.parametrize("assignment", assignments())
def test_every_region_holds_a_current_mutation_score_of_100_percent(assignment):
    """The CI's mutation gate, read from tests/mutants/scores.json (written by make mutants):
    every region's record is of the code and tests as they are now, and no mutant survived."""
    if assignment in NOT_YET_MEASURED:
        pytest.skip(f"{assignment}: not every region graded yet (make mutants NB={assignment})")
    wrong = mut.problems(assignment)
    assert not wrong, "\n".join(f"{assignment} {cell}: {why}; run make mutants NB={assignment} "
                                f"ONLY={cell}" for cell, why in wrong.items())


def test_a_record_goes_stale_when_a_test_or_a_region_changes(monkeypatch, tmp_path):
    """The digest follows what decides a verdict: changing a test cell, the region or an
    equivalent's line makes the record stale; a markdown cell does not."""
    import nbformat

    nb = nbformat.read(mut.SOLUTIONS / "00_getting_started" / "00_getting_started.ipynb", as_version=4)
    found, equal = mut.mutants("00_getting_started"), mut.equivalents()
    before = mut.digest("00_getting_started", "tensor_nbytes", found, equal)

    def digest_with(cells):
        root = tmp_path / f"s{len(list(tmp_path.iterdir()))}"
        (root / "00_getting_started").mkdir(parents=True)
        nbformat.write(nbformat.v4.new_notebook(cells=cells, metadata=nb.metadata),
                       root / "00_getting_started" / "00_getting_started.ipynb")
        monkeypatch.setattr(mut, "SOLUTIONS", root)
        return mut.digest("00_getting_started", "tensor_nbytes", mut.mutants("00_getting_started"), equal)

    assert digest_with(nb.cells) == before
    assert digest_with([*nb.cells, nbformat.v4.new_markdown_cell("more prose")]) == before
    test = next(i for i, c in enumerate(nb.cells)
                if c.metadata.get("nbgrader", {}).get("grade_id") == "test_tensor_nbytes")
    cells = [dict(c) for c in nb.cells]
    cells[test] = nbformat.from_dict({**nb.cells[test], "source": nb.cells[test].source + "\n# one more check"})
    assert digest_with([nbformat.from_dict(c) for c in cells]) != before
    some = found[0]
    assert mut.digest("00_getting_started", some.cell, found,
                      {**equal, f"00_getting_started {some.key}": "a reason"}) != \
        mut.digest("00_getting_started", some.cell, found, equal)


def test_equivalents_name_mutants_that_exist():
    equal = mut.equivalents()
    keys = {f"{a} {m.key}" for a in {k.split()[0] for k in equal} for m in mut.mutants(a)}
    stale = sorted(set(equal) - keys)
    assert not stale, f"tests/mutants/equivalent.txt names mutants that no longer exist: {stale}"
    assert all(len(reason) > 20 for reason in equal.values()), "each equivalent says why"


@pytest.mark.slow
def test_grading_catches_wrong_mutants_and_reports_a_correct_one():
    """Three mutants of 00's tensor_nbytes graded by the hidden tests: two wrong ones lose, and
    a correct rewrite (the product taken the other way round) survives, so a survivor is
    reported, not assumed away."""
    found = {m.operator: m for m in mut.mutants("00_getting_started", only="tensor_nbytes")}
    wrong = [found["binop Mult->Div"], found["constant +1"]]
    right = dataclasses.replace(wrong[0], operator="commuted",
                                code=wrong[0].code.replace("numel / dtype.itemsize",
                                                           "dtype.itemsize * numel"))
    assert right.code != wrong[0].code
    verdict = mut.grade("00_getting_started", [*wrong, right])
    assert verdict == {wrong[0].key: True, wrong[1].key: True, right.key: False}, verdict


@pytest.mark.slow
def test_catch_rate_reads_another_folder_and_counts_both_ways(tmp_path):
    """make catch-rate's verdicts on a folder of new answers: a wrong one that loses and a
    correct one that scores full both count as scored as they should; a correct answer handed
    in as wrong does not."""
    from tests import catch_rate

    folder = tmp_path / "00_getting_started"
    folder.mkdir()
    body = "return math.prod(shape) * torch.empty((), dtype=dtype).element_size()"
    (folder / "bits_not_bytes.py").write_text(
        "# cell: tensor_nbytes\n# loses: test_tensor_nbytes\nimport math\n\n"
        "return math.prod(shape) * torch.finfo(dtype).bits\n")
    (folder / "probe.py").write_text(f"# cell: tensor_nbytes\n# scores: full\nimport math\n\n{body}\n")
    (folder / "called_wrong.py").write_text(
        f"# cell: tensor_nbytes\n# loses: test_tensor_nbytes\nimport math\n\n{body}\n")
    got = catch_rate.verdicts("00_getting_started", 1, tmp_path)
    assert got == {"bits_not_bytes": True, "probe": True, "called_wrong": False}, got
