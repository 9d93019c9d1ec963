# cell: predict_chain
# loses: test_predict_chain
# the launch overhead paid once for the whole chain, not once per launch
for name, value in (("k", k), ("n", n)):
    if value < 0:
        raise ValueError(f"{name} must not be negative, got {value!r}")
launches = min(int(k), 1) if fused else int(k)
return launches, float((overhead_s if launches else 0.0) + launches * n * seconds_per_element)
