"""The learner's and the author's tools: working copies, validation, releases, authoring.

Run on the learner's or the author's own machine (or their hub server), on their own side
of the trust boundary: ``make lab``'s and ``make reset``'s working copy (workcopy.py),
``make validate`` (validate.py), ``make release`` (release.py), notebooks written as
Python files (nbbuild.py) and Colab's badge and set-up cell (colab.py). They trust the
course checkout they run in and run the learner's code with the learner's own rights; no
verdict they give counts as a grade (grading/trusted/ and grading/batch/ give those).
"""
