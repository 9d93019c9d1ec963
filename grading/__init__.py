"""The course's tools and its grader, in folders by role.

- ``tools/``: the learner's and the author's tools (working copy, validate, release,
  notebooks as Python files, Colab), run with the rights of whoever runs them;
- ``trusted/``: the trusted path (sandbox, fork server, seccomp filter, kernels, judge,
  nbgrader's execute and output steps, sanitizer): where a learner's code runs and is judged;
- ``batch/``: the batch grader (import, grading on Dask, gradebook, reports, LMS export);
- ``hub/``: the course's JupyterHub and the instructor's side of nbgrader's exchange.

Beside them, used by all: ``course.py`` (the course layout and nbgrader, driven from
Python) and ``nbgrader_config.py`` (the course's nbgrader configuration, where
JUPYTER_CONFIG_PATH points nbgrader).
"""
