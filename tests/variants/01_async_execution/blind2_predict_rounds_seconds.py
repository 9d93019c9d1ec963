# cell: predict_chain
# loses: test_predict_chain
# Rounds the prediction to nanoseconds "to keep it readable": exact to 1e-12 relative for the
# visible inputs (9.6e-05 s and 6e-06 s have few digits), far off for a small or finely valued
# model (e.g. overhead 1.234567e-7 s, or 3 elements at 1e-12 s). Breaks "within 1e-12 relative".
if k < 0:
    raise ValueError(f"k must be >= 0, got {k!r}")
if n < 0:
    raise ValueError(f"n must be >= 0, got {n!r}")
launches = min(k, 1) if fused else k
return launches, round(launches * (overhead_s + n * seconds_per_element), 9)
