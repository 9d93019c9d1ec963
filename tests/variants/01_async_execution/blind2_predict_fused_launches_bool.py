# cell: predict_chain
# loses: test_predict_chain
# Fused launch count written as a comparison: `k > 0` is 1 or 0 as a number but a bool, not an
# int (bool is an int subclass, so isinstance(launches, int) and launches == 1 both hold). Breaks
# "launches is a Python int" for every fused chain.
if k < 0:
    raise ValueError(f"k must be >= 0, got {k!r}")
if n < 0:
    raise ValueError(f"n must be >= 0, got {n!r}")
launches = (k > 0) if fused else k
return launches, float(launches * (overhead_s + n * seconds_per_element))
