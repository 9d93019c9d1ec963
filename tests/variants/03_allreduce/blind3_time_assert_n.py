# cell: allreduce_time
# loses: test_allreduce_time
# Checks n with assert: n < 1 raises AssertionError (message names n), not ValueError, and nothing at all under
# python -O. Breaks "Raise ValueError naming the argument for ... n < 1" (the error type).
if algorithm not in ("naive", "tree", "ring"):
    raise ValueError(f"unknown algorithm {algorithm!r}")
assert n >= 1, f"n must be at least 1, got n={n}"
message = alpha + nbytes * beta
if algorithm == "naive":
    return float(2 * (n - 1) * message)
if algorithm == "tree":
    return float(2 * (n - 1).bit_length() * message)
return float(2 * (n - 1) * (alpha + nbytes / n * beta))
