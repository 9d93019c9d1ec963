"""Fixtures of the sandbox tests: a sandbox made both ways (bubblewrap, and forked from the
fork server as root), and its starting folder."""

from __future__ import annotations

import os

import pytest

from grading.trusted import sandbox


@pytest.fixture(scope="module")
def usable():
    why = sandbox.unavailable()
    assert why is None, f"no sandbox on this machine: {why} (make system installs bubblewrap)"


@pytest.fixture(params=["bubblewrap", "forked"])
def launch(request, monkeypatch):
    """Each sandbox made both ways: by bubblewrap, and forked from the fork server (as
    root; grading/trusted/forkserver.py), which must give the same walls."""
    if request.param == "forked" and os.geteuid() != 0:
        pytest.skip("the fork server needs root")
    monkeypatch.setenv(sandbox.FORKSERVER_ENV, "1" if request.param == "forked" else "0")
    return request.param


@pytest.fixture
def box(tmp_path, usable, launch):
    """The folder of files a sandbox starts with (copied into its tmpfs working folder)."""
    work = tmp_path / "work"
    work.mkdir()
    os.chmod(tmp_path, 0o755)
    os.chmod(work, 0o755)
    return work


@pytest.fixture
def forked(usable, monkeypatch):
    if os.geteuid() != 0:
        pytest.skip("the fork server needs root")
    monkeypatch.setenv(sandbox.FORKSERVER_ENV, "1")


