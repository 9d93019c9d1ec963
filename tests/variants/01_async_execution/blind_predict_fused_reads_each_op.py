# cell: predict_chain
# loses: test_predict_chain
# Fused: one launch, but still k passes over the elements (the fusion is counted in launches only).
if k < 0:
    raise ValueError(f"k must be non-negative, got {k!r}")
if n < 0:
    raise ValueError(f"n must be non-negative, got {n!r}")
launches = (1 if k else 0) if fused else k
return launches, float(launches * overhead_s + k * n * seconds_per_element)
