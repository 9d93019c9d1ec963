"""grading/: the tools, the trusted path (sandbox, fork server, kernels, judge, sanitizer), the batch grader and the hub."""
