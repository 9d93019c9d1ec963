# cell: predict_chain
# loses: test_predict_chain
# k checked only where it counts launches (eager); a fused chain is one launch "if there are ops", so k=-3 fused is 1 launch
if n < 0:
    raise ValueError(f"n must not be negative, got {n}")
if fused:
    launches = 1 if k else 0
else:
    if k < 0:
        raise ValueError(f"k must not be negative, got {k}")
    launches = k
return launches, float(launches * (overhead_s + n * seconds_per_element))
