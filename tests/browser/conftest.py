"""One JupyterLab server and one headless Chromium for the whole browser suite.

Both are shut down at the end of the run, also when a test fails. Screenshots land in
test-artifacts/screenshots/; the terminal summary (tests/conftest.py) says where.
"""

from __future__ import annotations

import pytest

from tests.browser.lab import (
    CHROMIUM,
    CHROMIUM_ARGS,
    SCREENSHOTS,
    Lab,
    LabServer,
    chromium_missing_message,
    scratch_course,
)


@pytest.fixture(scope="session")
def lab(tmp_path_factory):
    """The course's JupyterLab on a scratch copy of the course, open in headless Chromium."""
    missing = chromium_missing_message()
    if missing:
        pytest.fail(missing, pytrace=False)
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail("the Python package 'playwright' is missing: make test installs it "
                    "(pip install -e '.[test]')", pytrace=False)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for old in SCREENSHOTS.glob("*.png"):
        old.unlink()
    workdir = tmp_path_factory.mktemp("lab")
    server = LabServer(scratch_course(workdir / "course"), workdir)
    playwright = browser = lab = None
    try:
        server.start()
        playwright = sync_playwright().start()
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": 1400, "height": 900})
        context.set_default_timeout(60_000)
        page = context.new_page()
        lab = Lab(server, page)
        lab.load()
        yield lab
    finally:
        try:
            if browser is not None:
                browser.close()
        finally:
            try:
                if playwright is not None:
                    playwright.stop()
            finally:
                server.stop()
