# cell: predict_chain
# loses: test_predict_chain
# right values, but the seconds come back as an int when the costs are given as ints (0, 1 s): the contract says a float
for name, value in (("k", k), ("n", n)):
    if value < 0:
        raise ValueError(f"{name} must not be negative, got {value!r}")
launches = min(k, 1) if fused else k
return launches, launches * (overhead_s + n * seconds_per_element)
