# cell: predict_chain
# loses: test_predict_chain
# Adds the cost of each launch one at a time in a float loop: exact enough for k = 16, but the
# rounding error grows with k (about 1e-11 relative at k = 10**6, measured) and the loop takes
# seconds for k in the millions. Breaks "within 1e-12 relative of the model's value" for long chains.
if k < 0:
    raise ValueError(f"k must be >= 0, got k={k!r}")
if n < 0:
    raise ValueError(f"n must be >= 0, got n={n!r}")
launches = min(k, 1) if fused else k
seconds = 0.0
for _ in range(launches):
    seconds += overhead_s + n * seconds_per_element
return launches, seconds
