"""One JupyterLab server and one headless Chromium for the whole browser suite.

Both are shut down at the end of the run, also when a test fails. Screenshots land in
test-artifacts/screenshots/, and the terminal summary says where.
"""

from __future__ import annotations

import os
import time
import warnings

import pytest

from tests.browser.lab import (
    ARTIFACTS,
    CHROMIUM,
    CHROMIUM_ARGS,
    REPO,
    SCREENSHOTS,
    Lab,
    LabServer,
    chromium_missing_message,
    scratch_course,
)

_SESSION_START = time.time()


class ScreenshotsWritten(UserWarning):
    """Where this run's screenshots are (the way a pytest-xdist worker can say it)."""


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
                _say_where_screenshots_are(lab)


def _say_where_screenshots_are(lab: Lab | None) -> None:
    """Under pytest-xdist the controller never loads this conftest, so its terminal summary
    hook below does not run: a worker says it with a warning, shown in the warnings summary."""
    if lab is None or not lab.shots or not os.environ.get("PYTEST_XDIST_WORKER"):
        return
    warnings.warn(ScreenshotsWritten(
        f"{len(lab.shots)} browser screenshots (each notebook after Run All, each widget after "
        f"a control moved, Validate, nbgrader panels) in {SCREENSHOTS}/"), stacklevel=1)


def pytest_terminal_summary(terminalreporter):
    """Say where this run's screenshots are (written by whichever worker ran the browser)."""
    if not SCREENSHOTS.is_dir():
        return
    shots = sorted(p for p in SCREENSHOTS.glob("*.png") if p.stat().st_mtime >= _SESSION_START)
    if not shots:
        return
    terminalreporter.section("browser screenshots")
    terminalreporter.write_line(f"{len(shots)} screenshots in {SCREENSHOTS.relative_to(REPO)}/ "
                                f"(under {ARTIFACTS}):")
    for shot in shots:
        terminalreporter.write_line(f"  {shot.name}")
