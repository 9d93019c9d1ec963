# cell: predict_chain
# loses: test_predict_chain
# Copy-pasted check: a negative n raises ValueError, but its message names k ("k must be >= 0,
# got -5"). Right type, wrong message: breaks "a ValueError that names it" (n) for n only.
if k < 0:
    raise ValueError(f"k must be >= 0, got {k!r}")
if n < 0:
    raise ValueError(f"k must be >= 0, got {n!r}")
launches = min(k, 1) if fused else k
return launches, float(launches * (overhead_s + n * seconds_per_element))
