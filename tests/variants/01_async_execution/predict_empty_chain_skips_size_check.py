# cell: predict_chain
# loses: test_predict_chain
# an empty chain answered first (it launches nothing, whatever n), so a negative n goes unnoticed there
if k == 0:
    return 0, 0.0
for name, value in (("k", k), ("n", n)):
    if value < 0:
        raise ValueError(f"{name} must not be negative, got {value!r}")
launches = 1 if fused else int(k)
return launches, float(launches * (overhead_s + n * seconds_per_element))
