# cell: allreduce_time
# loses: test_allreduce_time
# One worker returns the int 0 (the contract promises a float of seconds); the rest is right.
if isinstance(n, bool) or not isinstance(n, int) or n < 1:
    raise ValueError(f"n must be a number of workers >= 1, got {n!r}")
if n == 1:
    return 0
if algorithm == "naive":
    return 2 * (n - 1) * (alpha + nbytes * beta)
if algorithm == "tree":
    return 2 * (n - 1).bit_length() * (alpha + nbytes * beta)
if algorithm == "ring":
    return 2 * (n - 1) * alpha + 2 * (n - 1) / n * nbytes * beta
raise ValueError(f"algorithm must be 'naive', 'tree' or 'ring', got {algorithm!r}")
