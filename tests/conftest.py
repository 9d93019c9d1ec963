import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
# Tests never pick up a learner's own Jupyter configuration.
os.environ["JUPYTER_CONFIG_PATH"] = str(REPO / "grading")
os.environ.setdefault("MPLBACKEND", "Agg")
