# cell: predict_chain
# loses: test_predict_chain
# Off by one in the size checks: "k and n must be positive", so an empty chain (k = 0) or an empty
# tensor (n = 0) raises ValueError instead of (0, 0.0) or (k, k * overhead_s). Breaks "an empty
# chain launches nothing" and "a negative k or n is a ValueError" (zero is not negative).
if k <= 0:
    raise ValueError(f"k must be positive, got {k!r}")
if n <= 0:
    raise ValueError(f"n must be positive, got {n!r}")
launches = 1 if fused else k
return launches, float(launches * (overhead_s + n * seconds_per_element))
