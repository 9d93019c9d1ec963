# cell: allreduce_time
# loses: test_allreduce_time
# Normalises the name ("be forgiving") so "Ring", "TREE " and " naive" are accepted as known algorithms.
# Breaks "algorithm one of 'naive', 'tree', 'ring' ... Raise ValueError for an unknown algorithm".
algorithm = algorithm.strip().lower()
if algorithm not in ("naive", "tree", "ring"):
    raise ValueError(f"unknown algorithm {algorithm!r}")
if n < 1:
    raise ValueError(f"n must be at least 1, got n={n}")
message = alpha + nbytes * beta
if algorithm == "naive":
    return float(2 * (n - 1) * message)
if algorithm == "tree":
    return float(2 * (n - 1).bit_length() * message)
return float(2 * (n - 1) * (alpha + nbytes / n * beta))
