import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
# Tests never pick up a learner's own Jupyter configuration.
os.environ["JUPYTER_CONFIG_PATH"] = str(REPO / "grading")
os.environ.setdefault("MPLBACKEND", "Agg")

SCREENSHOTS = REPO / "test-artifacts" / "screenshots"
_SESSION_START = time.time()


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
