"""nbgrader configuration for the course.

The course root is the repository (or COURSE_ROOT, which the tests point at a scratch
copy). nbgrader's folders map onto the course layout:

    solutions/<assignment>/   source     (what authors edit)
    notebooks/<assignment>/   release    (what learners open; generated)
    grading/submitted/ ...    working folders of a grading run (git-ignored)
"""

import os
import sys
from pathlib import Path

c = get_config()  # noqa: F821 (provided by traitlets when it loads this file)

root = Path(os.environ.get("COURSE_ROOT") or Path(__file__).resolve().parent.parent).resolve()
work = root / "grading"

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from grading.course import CACHES, LAYOUT  # noqa: E402

c.CourseDirectory.root = str(root)
for key, value in LAYOUT.items():  # course id and folders
    setattr(c.CourseDirectory, key, value)
c.CourseDirectory.db_url = os.environ.get("COURSE_DB_URL") or f"sqlite:///{work / 'gradebook.db'}"
c.CourseDirectory.ignore = [*CACHES, "feedback", "*.tmp"]

# Trusted autograding (grading/trusted/judge.py): the learner's cells run in a sandboxed kernel
# (grading/trusted/sandbox.py, where the machine can make one: JudgedExecute.sandbox = auto), the
# graded test cells in a judge kernel that never runs learner code. Validate is untouched:
# it runs everything in one ordinary kernel, as on a learner's laptop.
from nbconvert.preprocessors import ClearMetadataPreprocessor  # noqa: E402
from nbgrader.preprocessors import (AssignLatePenalties, CheckCellMetadata,  # noqa: E402
                                    IgnorePattern, LimitOutput, SaveAutoGrades)

from grading.trusted.judge import JudgedExecute  # noqa: E402
from grading.trusted.preprocessors import CapOutput, RobustExecute  # noqa: E402
from grading.trusted.sanitize import SanitizeNotebook  # noqa: E402

# COURSE_JUDGE=off grades the way nbgrader does by default (tests in the student's own
# kernel); it exists only so tests/grading/test_trusted_grading.py can show what the judge stops.
c.Autograde.autograde_preprocessors = [
    JudgedExecute if os.environ.get("COURSE_JUDGE", "on") != "off" else RobustExecute, IgnorePattern, ClearMetadataPreprocessor, LimitOutput, CapOutput,
    SanitizeNotebook, SaveAutoGrades, AssignLatePenalties, CheckCellMetadata]

# No learner script in any staff or student view (grading/trusted/sanitize.py): the notebook
# autograde stores keeps only safe outputs (SanitizeNotebook above), and every notebook an
# HTMLExporter of this config renders (the formgrader's submission pages, every feedback
# file, notebooks graded before this was on) is cleaned again: outputs by SanitizeNotebook
# and nbconvert's sanitize_html (through the course's allow-list: nbconvert's own would
# escape a table's <th> and <tbody> and every inline style), markdown after it is rendered
# to HTML (nbgrader's templates put markdown2html's HTML into the page uncleaned).
c.HTMLExporter.preprocessors = ["grading.trusted.sanitize.SanitizeNotebook"]
c.HTMLExporter.sanitize_html = True
c.HTMLExporter.filters = {"clean_html": "grading.trusted.sanitize.clean_html",
                          "markdown2html": "grading.trusted.sanitize.markdown2html"}

# Per-cell time limit. nbgrader's Execute preprocessor reads Execute.timeout (seconds);
# a cell that runs longer is interrupted, scores 0, and the notebook goes on.
c.Execute.timeout = int(os.environ.get("COURSE_CELL_TIMEOUT", "120"))
c.Execute.interrupt_on_timeout = True
# nbgrader's Execute (the Validate button's too) fails a cell whose last outputs trail its
# reply by 4 s, which a loaded machine does: the reply is in, go on (grading/trusted/preprocessors.py)
c.Execute.raise_on_iopub_timeout = False
c.Execute.iopub_timeout = 30  # and waits that long for them first: a print is not lost

# nbgrader gives 0 to any graded cell with stderr output. Python warnings
# ("file.py:12: UserWarning: ...") are not failures: drop those streams before grading.
# Errors still zero a cell, because they are 'error' outputs, not stderr text.
c.IgnorePattern.enabled = True
c.IgnorePattern.pattern = r"(?m)^.*:\d+: \w*Warning: "

# The Validate button says what `make validate` says about a failed test cell, one line
# ("not done yet: ..." on a blank notebook), not a traceback per cell (grading/tools/validate.py).
from labkit.validation import brief_errors  # noqa: E402

c.Validator.Execute.on_cell_error = brief_errors

# A graded cell the learner deleted is put back (with its original tests) and graded.
c.OverwriteCells.add_missing_cells = True

# Huge outputs are capped in the autograded copy.
c.LimitOutput.max_lines = 1000
c.LimitOutput.max_traceback = 100


# The exchange that nbgrader's Assignment List panel reads (release_assignment puts
# assignments there, learners fetch and submit through it). Kept inside the course,
# git-ignored, and created here so the panel never reports a missing exchange.
exchange = work / "exchange"
exchange.mkdir(parents=True, exist_ok=True)
c.Exchange.root = str(exchange)
