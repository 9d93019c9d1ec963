# cell: predict_chain
# loses: test_predict_chain
# Early return for the empty chain written with integer literals: (0, 0), so seconds is the int 0,
# not a float, for k == 0 (eager or fused). Breaks "seconds a Python float" on the one case the
# visible test does not try.
if k < 0:
    raise ValueError(f"k must be >= 0 (ops in the chain), got {k!r}")
if n < 0:
    raise ValueError(f"n must be >= 0 (elements of the tensor), got {n!r}")
if k == 0:
    return 0, 0
launches = 1 if fused else k
return launches, float(launches * (overhead_s + n * seconds_per_element))
