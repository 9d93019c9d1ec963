# cell: predict_chain
# loses: test_predict_chain
# Gets the launch count of an empty chain right (0) but computes seconds separately from the fused
# flag: a fused empty chain is charged one launch, overhead_s + n * seconds_per_element, while it
# reports 0 launches. Breaks "an empty chain launches nothing" for the seconds (k = 0 costs 0.0) and
# the model's own consistency (seconds = launches * cost per launch). Eager k = 0 is right.
if k < 0:
    raise ValueError(f"k must be >= 0, got k={k}")
if n < 0:
    raise ValueError(f"n must be >= 0, got n={n}")
launches = 0 if k == 0 else (1 if fused else k)
per_launch = overhead_s + n * seconds_per_element
seconds = per_launch if fused else k * per_launch
return launches, float(seconds)
