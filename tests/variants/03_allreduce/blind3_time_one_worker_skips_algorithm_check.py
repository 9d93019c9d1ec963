# cell: allreduce_time
# loses: test_allreduce_time
# "With one worker there is nothing to send" is returned before the algorithm is looked at, so
# allreduce_time("bogus", 1, ...) returns 0.0. Breaks "Raise ValueError naming the argument for an unknown
# algorithm" on the n=1 path (n < 1 is still rejected).
if n < 1:
    raise ValueError(f"n must be at least 1, got n={n}")
if n == 1:
    return 0.0
message = alpha + nbytes * beta
if algorithm == "naive":
    return float(2 * (n - 1) * message)
if algorithm == "tree":
    return float(2 * (n - 1).bit_length() * message)
if algorithm == "ring":
    return float(2 * (n - 1) * (alpha + nbytes / n * beta))
raise ValueError(f"unknown algorithm {algorithm!r}")
