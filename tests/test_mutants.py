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
