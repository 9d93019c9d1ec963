"""The batch grader: a class's submissions imported, graded, recorded and reported.

Runs on the instructor's side of the trust boundary, around the trusted path
(grading/trusted/): it reads an LMS zip or a folder of submissions, hands each one to a
grading process (on a Dask cluster) that grades it in a sandbox, and writes what comes back
into the gradebook, the feedback, the reports and the LMS's grade files. It trusts the
course and its gradebook; a submission's files and everything a grading process returns are
plain data, checked for size and shape, never imported or run here.
"""
