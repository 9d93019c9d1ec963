"""One JupyterLab server and one headless Chromium for the whole browser suite.

Both are shut down at the end of the run, also when a test fails. Screenshots land in
test-artifacts/screenshots/; the terminal summary (tests/conftest.py) says where.
"""

from __future__ import annotations

import pytest

from tests.browser.lab import Lab
from tests.browser.server import SCREENSHOTS, LabServer, scratch_course


@pytest.fixture(scope="session")
def lab(tmp_path_factory, chromium):
    """The course's JupyterLab on a scratch copy of the course, open in headless Chromium."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for old in SCREENSHOTS.glob("*.png"):
        old.unlink()
    workdir = tmp_path_factory.mktemp("lab")
    server = LabServer(scratch_course(workdir / "course"), workdir)
    context = None
    try:
        server.start()
        context = chromium.new_context(viewport={"width": 1400, "height": 900})
        context.set_default_timeout(60_000)
        lab = Lab(server, context.new_page())
        lab.load()
        yield lab
    finally:
        try:
            if context is not None:
                context.close()
        finally:
            server.stop()
