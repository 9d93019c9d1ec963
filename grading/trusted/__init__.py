"""The trusted path: where a learner's code runs and where its answers are judged.

Runs on the instructor's side of the trust boundary, in the grading process: the sandbox
(bubblewrap, or a kernel forked by the fork server, under the seccomp filter), the grader's
kernels on private sockets, the judge kernel that runs the test cells, nbgrader's execute
and output steps, and the sanitizer of what a submission shows. It trusts the course's own
files (solutions/, labkit/, this folder) and nothing a submission holds or a learner's
kernel sends: that is data, bounded in size and time, and never run outside the sandbox.
"""
