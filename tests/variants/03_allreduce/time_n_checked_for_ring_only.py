# cell: allreduce_time
# loses: test_allreduce_time
# n < 1 refused only where it would divide by zero (the ring's (n-1)/n); naive and tree answer a number for n=0
if algorithm == "naive":
    return 2 * (n - 1) * (alpha + nbytes * beta)
if algorithm == "tree":
    return 2 * (n - 1).bit_length() * (alpha + nbytes * beta)
if algorithm == "ring":
    if n < 1:
        raise ValueError(f"n must be at least 1, got {n}")
    return 2 * (n - 1) * alpha + 2 * (n - 1) / n * nbytes * beta
raise ValueError(f"algorithm must be 'naive', 'tree' or 'ring', got {algorithm!r}")
