"""nbgrader configuration of a student's server on the course hub (grading/hub/).

``make hub`` copies this folder to /opt/fast-dl-hub/student (a student cannot read the
course folder). A student fetches, validates and submits through nbgrader's exchange; the
course itself (solutions, gradebook, the other students' work) is not readable from here:
the server runs as the student's own Unix account. The hub sets COURSE_EXCHANGE to the
exchange and COURSE_ID to the course id; nbgrader names a hand-in after the Unix account.
"""

import os

c = get_config()  # noqa: F821 (provided by traitlets when it loads this file)

c.CourseDirectory.course_id = os.environ.get("COURSE_ID", "fast-dl")
c.Exchange.root = os.environ["COURSE_EXCHANGE"]
# Caches are not handed in (grading/course.py:CACHES, which a student cannot read).
c.CourseDirectory.ignore = [".ipynb_checkpoints", "__pycache__", "*.pyc", ".hypothesis", "feedback"]

# The Validate dialog says what `make validate` says: one line per failed test cell ("not
# done yet" on a blank notebook), not a traceback (labkit is in the hub's environment).
from labkit.validation import brief_errors  # noqa: E402

c.Validator.Execute.on_cell_error = brief_errors
c.Execute.raise_on_iopub_timeout = False  # a loaded server's late outputs fail no cell
c.Execute.iopub_timeout = 30  # and are waited for, not dropped
