# cell: predict_chain
# loses: test_predict_chain
# Validates with assert: a negative k or n raises AssertionError (with a message naming it), not
# ValueError, and the check vanishes under python -O. Breaks "a ValueError that names it".
assert k >= 0, f"k must be >= 0, got {k!r}"
assert n >= 0, f"n must be >= 0, got {n!r}"
launches = min(k, 1) if fused else k
return launches, float(launches * (overhead_s + n * seconds_per_element))
