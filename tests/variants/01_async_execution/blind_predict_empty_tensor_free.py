# cell: predict_chain
# loses: test_predict_chain
# Treats an empty tensor (n == 0) like an empty chain: no launches and no time, though each op
# is still launched and pays its overhead.
if k < 0:
    raise ValueError(f"k must be non-negative, got {k!r}")
if n < 0:
    raise ValueError(f"n must be non-negative, got {n!r}")
if k == 0 or n == 0:
    return 0, 0.0
launches = 1 if fused else k
return launches, float(launches * (overhead_s + n * seconds_per_element))
