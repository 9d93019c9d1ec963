# cell: allreduce_time
# loses: test_allreduce_time
if algorithm == "naive":
    return 2 * (n - 1) * (alpha + nbytes * beta)
if algorithm == "tree":
    return 2 * (n - 1).bit_length() * (alpha + nbytes * beta)
if algorithm == "ring":
    return 2 * (n - 1) * alpha + (n - 1) / n * nbytes * beta  # the factor 2(N-1)/N lost its 2
raise ValueError(f"unknown algorithm {algorithm!r}")
