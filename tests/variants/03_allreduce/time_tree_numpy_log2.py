# cell: allreduce_time
# loses: test_allreduce_time
# the tree's rounds from np.ceil(np.log2(n)): right values, but every tree time is a numpy.float64, not a float
if n < 1:
    raise ValueError(f"n must be >= 1, got {n}")
if algorithm == "naive":
    return 2 * (n - 1) * (alpha + nbytes * beta)
if algorithm == "tree":
    return 2 * np.ceil(np.log2(n)) * (alpha + nbytes * beta)
if algorithm == "ring":
    return 2 * (n - 1) * alpha + 2 * (n - 1) / n * nbytes * beta
raise ValueError(f"algorithm must be 'naive', 'tree' or 'ring', got {algorithm!r}")
