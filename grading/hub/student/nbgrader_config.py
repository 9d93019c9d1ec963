"""nbgrader configuration of a student's server on the course hub (grading/hub/).

A student fetches, validates and submits through nbgrader's exchange; the course itself
(solutions, gradebook) is not visible from here. The hub sets COURSE_EXCHANGE to the
course's exchange folder and COURSE_ID to the course id.
"""

import os

c = get_config()  # noqa: F821 (provided by traitlets when it loads this file)

c.CourseDirectory.course_id = os.environ.get("COURSE_ID", "fast-dl")
c.Exchange.root = os.environ["COURSE_EXCHANGE"]
# On this demo hub every account runs as one Unix user, so nbgrader cannot tell students
# apart by their Unix name: a submission carries the hub account's name instead.
c.CourseDirectory.student_id = os.environ["JUPYTERHUB_USER"]
