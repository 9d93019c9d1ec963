# cell: allreduce_time
# loses: test_allreduce_time
# Ring chunk size with floor division nbytes // n ("a chunk is a whole number of bytes"): exact when n divides
# nbytes (every visible case, and 1e6 // 4 is 250000.0), short by up to a byte per step otherwise.
# Breaks: the ring formula, each step carries nbytes / N (2(N-1)/N nbytes in all), for nbytes not divisible by N.
if algorithm not in ("naive", "tree", "ring"):
    raise ValueError(f"unknown algorithm {algorithm!r}")
if n < 1:
    raise ValueError(f"n must be >= 1, got {n}")
if algorithm == "naive":
    return 2 * (n - 1) * (alpha + nbytes * beta)
if algorithm == "tree":
    return 2 * (n - 1).bit_length() * (alpha + nbytes * beta)
return 2 * (n - 1) * (alpha + (nbytes // n) * beta)
