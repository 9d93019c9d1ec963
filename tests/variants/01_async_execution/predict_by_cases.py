# cell: predict_chain
# scores: full
# the same model written by cases, the two terms added separately
if k < 0:
    raise ValueError(f"k is negative: {k}")
if n < 0:
    raise ValueError(f"n is negative: {n}")
if k == 0:
    return 0, 0.0
launches = 1 if fused else k
return launches, launches * overhead_s + launches * n * seconds_per_element * 1.0
