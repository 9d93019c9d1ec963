# cell: allreduce_time
# loses: test_allreduce_time
if algorithm == "naive":
    return 2 * (n - 1) * (alpha + nbytes * beta)
if algorithm == "tree":
    return 2 * int(math.log2(n)) * (alpha + nbytes * beta)  # floor, not ceiling: N=5 needs 3 levels
if algorithm == "ring":
    return 2 * (n - 1) * alpha + 2 * (n - 1) / n * nbytes * beta
raise ValueError(f"unknown algorithm {algorithm!r}")
