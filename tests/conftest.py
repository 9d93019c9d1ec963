import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
# Tests never pick up a learner's own Jupyter configuration.
os.environ["JUPYTER_CONFIG_PATH"] = str(REPO / "grading")
os.environ.setdefault("MPLBACKEND", "Agg")

import pytest  # noqa: E402

SCREENSHOTS = REPO / "test-artifacts" / "screenshots"


@pytest.fixture
def no_mxnet(tmp_path, monkeypatch):
    """PYTHONPATH with an 'mxnet' package whose import raises ImportError, as on a machine
    without MXNet (most GPU machines today), for this process's children; grading-mode
    sizes, so notebooks run lean."""
    shim = tmp_path / "shim"
    (shim / "mxnet").mkdir(parents=True)
    (shim / "mxnet" / "__init__.py").write_text(
        'raise ImportError("mxnet made unimportable for this test")\n')
    path = os.pathsep.join(p for p in (str(shim), os.environ.get("PYTHONPATH", "")) if p)
    monkeypatch.setenv("PYTHONPATH", path)
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    return shim
_SESSION_START = time.time()


@pytest.fixture(scope="session")
def chromium():
    """One Playwright and one headless Chromium per test process, shared by every test that
    drives a browser (Playwright's sync API runs one instance per thread), closed at the end."""
    from tests.browser.lab import CHROMIUM, CHROMIUM_ARGS, chromium_missing_message

    missing = chromium_missing_message()
    if missing:
        pytest.fail(missing, pytrace=False)
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail("the Python package 'playwright' is missing: make test installs it "
                    "(pip install -e '.[test]')", pytrace=False)
    playwright = sync_playwright().start()
    try:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()
    finally:
        playwright.stop()


def pytest_terminal_summary(terminalreporter):
    """Say where the browser tests' screenshots are, whichever xdist worker wrote them."""
    if not SCREENSHOTS.is_dir():
        return
    shots = sorted(p for p in SCREENSHOTS.glob("*.png") if p.stat().st_mtime >= _SESSION_START)
    if not shots:
        return
    terminalreporter.section("browser screenshots")
    terminalreporter.write_line(f"{len(shots)} screenshots (each notebook after Run All, each "
                                f"widget after a control moved, Validate, nbgrader panels) in "
                                f"{SCREENSHOTS}/:")
    for shot in shots:
        terminalreporter.write_line(f"  {shot.name}")
