"""The course hub: JupyterHub for a class (``make hub``) and the instructor's side of
nbgrader's exchange around ``make autograde``.

run.py runs as root on the class server and makes the accounts, the users' environment and
the course's permissions; jupyterhub_config.py is the hub's configuration; exchange.py
runs as the instructor. Learners reach the course only through their own servers, under
their own Unix accounts: the hub trusts the course and the instructor, and treats what a
student hands in through the exchange as a submission (graded by grading/batch/, in
grading/trusted/'s sandbox).
"""
