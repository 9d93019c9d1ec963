"""The cost table tests/conftest.py orders the work by (longest first under --dist loadgroup)
names only xdist groups and tests that exist, so it cannot quietly go stale."""

from __future__ import annotations

import re

from grading.course import assignments
from tests.conftest import COSTS, REPO


def test_every_cost_names_a_group_or_test_in_use():
    tests = REPO / "tests"
    literal = set()
    for path in tests.rglob("*.py"):
        literal |= set(re.findall(r"xdist_group\(\"([^\"]+)\"\)", path.read_text()))
    from tests.grading.test_trusted_grading import NOTEBOOKS, PARTS, group

    groups = literal | set(assignments()) | {group(nb, k) for nb in NOTEBOOKS
                                             for k in range(PARTS.get(nb, 1))}
    unknown = []
    for name in COSTS:
        if "::" not in name:
            if name not in groups:
                unknown.append(name)
            continue
        path, function = name.split("::")
        file = REPO / path
        if not file.is_file() or not re.search(rf"^def {re.escape(function)}\(",
                                                file.read_text(), re.M):
            unknown.append(name)
    assert not unknown, (f"tests/conftest.py COSTS names groups or tests that no longer exist: "
                         f"{unknown}; drop them or give their new names")


def test_the_workers_order_their_collection_by_cost_too():
    """xdist schedules by its workers' collection, and a worker's own ``dist`` option is "no":
    the order by cost must apply where the controller was started with --dist loadgroup."""
    from types import SimpleNamespace

    from tests.conftest import _loadgroup

    def worker(*argv):
        return SimpleNamespace(option=SimpleNamespace(dist="no"),
                               workerinput={"mainargv": ["pytest", *argv]})

    assert _loadgroup(worker("-n", "4", "--dist", "loadgroup", "-q"))
    assert _loadgroup(worker("-n", "4", "--dist=loadgroup"))
    assert not _loadgroup(worker("-n", "4", "--dist", "load"))
    assert not _loadgroup(worker("-k", "loadgroup"))
    assert _loadgroup(SimpleNamespace(option=SimpleNamespace(dist="loadgroup")))
