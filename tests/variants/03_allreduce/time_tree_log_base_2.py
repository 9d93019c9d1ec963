# cell: allreduce_time
# loses: test_allreduce_time
# rounds = ceil(log(n, 2)): math.log(2**29, 2) is 29.000000000000004, so 2**29 (and 2**31) workers get one round too many
if n < 1:
    raise ValueError(f"n must be >= 1, got {n}")
rounds = math.ceil(math.log(n, 2))
if algorithm == "naive":
    return 2 * (n - 1) * (alpha + nbytes * beta)
if algorithm == "tree":
    return 2 * rounds * (alpha + nbytes * beta)
if algorithm == "ring":
    return 2 * (n - 1) * alpha + 2 * (n - 1) / n * nbytes * beta
raise ValueError(f"algorithm must be 'naive', 'tree' or 'ring', got {algorithm!r}")
