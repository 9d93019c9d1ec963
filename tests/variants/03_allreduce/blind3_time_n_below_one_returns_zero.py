# cell: allreduce_time
# loses: test_allreduce_time
# "One worker: 0 seconds" written as n <= 1, so n = 0 or a negative n returns 0.0 instead of raising.
# Breaks "Raise ValueError naming the argument for n < 1" (the unknown-algorithm error is kept).
if algorithm not in ("naive", "tree", "ring"):
    raise ValueError(f"unknown algorithm {algorithm!r}")
if n <= 1:
    return 0.0  # nothing to send
message = alpha + nbytes * beta
if algorithm == "naive":
    return float(2 * (n - 1) * message)
if algorithm == "tree":
    return float(2 * (n - 1).bit_length() * message)
return float(2 * (n - 1) * (alpha + nbytes / n * beta))
