# cell: predict_chain
# loses: test_predict_chain
# a fused chain is always one launch, even an empty one
for name, value in (("k", k), ("n", n)):
    if value < 0:
        raise ValueError(f"{name} must not be negative, got {value!r}")
launches = 1 if fused else int(k)
return launches, float(launches * (overhead_s + n * seconds_per_element))
