"""The hub's collect step trusts no hand-in's name: a folder in the exchange's inbound that
names one student but belongs to another account is set aside, not collected as that
student's (grading/hub/exchange.py set_aside_forged)."""

from __future__ import annotations

import os
import pwd

import pytest

from grading.hub import exchange, run

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="needs root: makes Unix accounts")

ADA, BEN = "hubx-ada", "hubx-ben"


@pytest.fixture
def accounts():
    created = run.ensure_accounts([ADA, BEN])
    try:
        yield {name: pwd.getpwnam(name).pw_uid for name in (ADA, BEN)}
    finally:
        run.remove_accounts(created)


def _hand_in(inbound, name: str, uid: int) -> None:
    folder = inbound / name
    folder.mkdir()
    (folder / "00_getting_started.ipynb").write_text("{}")
    for path in (folder, folder / "00_getting_started.ipynb"):
        os.chown(path, uid, -1)


def test_a_hand_in_under_another_students_name_is_set_aside(tmp_path, accounts):
    inbound = tmp_path / "fast-dl" / "inbound"
    inbound.mkdir(parents=True)
    honest = f"{BEN}+00_getting_started+2026-11-23 10:00:00.000000 UTC+aaaa"
    forged = f"{BEN}+00_getting_started+2026-11-23 11:00:00.000000 UTC+bbbb"  # the latest
    own = f"{ADA}+00_getting_started+2026-11-23 10:30:00.000000 UTC+cccc"
    other = f"{BEN}+01_async_execution+2026-11-23 12:00:00.000000 UTC+dddd"
    stranger = "nobody-here+00_getting_started+2026-11-23 12:00:00.000000 UTC+eeee"
    _hand_in(inbound, honest, accounts[BEN])
    _hand_in(inbound, forged, accounts[ADA])
    _hand_in(inbound, own, accounts[ADA])
    _hand_in(inbound, other, accounts[ADA])  # another assignment: left to its own collect
    _hand_in(inbound, stranger, accounts[ADA])  # no such account: nothing to check against

    lines = exchange.set_aside_forged(tmp_path, "00_getting_started")

    assert sorted(p.name for p in inbound.iterdir()) == sorted([honest, own, other, stranger])
    aside = tmp_path / "fast-dl" / "inbound-set-aside"
    assert [p.name for p in aside.iterdir()] == [forged]
    assert len(lines) == 1 and f"claims to be {BEN}'s hand-in but belongs to {ADA}" in lines[0]
    assert exchange.set_aside_forged(tmp_path, "01_async_execution")  # its turn: set aside
    assert exchange.set_aside_forged(tmp_path, "00_getting_started") == []  # nothing left
