# cell: predict_chain
# loses: test_predict_chain
# right values, the seconds returned as a numpy.float64 (the contract says a Python float)
for name, value in (("k", k), ("n", n)):
    if value < 0:
        raise ValueError(f"{name} must not be negative, got {value!r}")
launches = min(int(k), 1) if fused else int(k)
return launches, np.float64(launches) * (overhead_s + n * seconds_per_element)
