"""nbgrader configuration of the instructor's server on the course hub (grading/hub/),
read before the course's own grading/nbgrader_config.py and winning over it: the exchange
is the hub's (COURSE_EXCHANGE, outside the course, every student reaches it), not the
course's grading/exchange."""

import os

c = get_config()  # noqa: F821 (provided by traitlets when it loads this file)

c.Exchange.root = os.environ["COURSE_EXCHANGE"]
