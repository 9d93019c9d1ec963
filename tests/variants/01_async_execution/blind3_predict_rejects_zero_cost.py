# cell: predict_chain
# loses: test_predict_chain
# Adds a check the contract does not make: costs must be positive, so overhead_s == 0 or
# seconds_per_element == 0 is a ValueError. The contract admits any costs (only a negative k or n
# is an error), and the notebook's own fit passes max(0.0, per_element), which is 0.0 on a machine
# where the slope comes out flat: the measurement cell would crash.
if k < 0:
    raise ValueError(f"k must be >= 0, got k={k}")
if n < 0:
    raise ValueError(f"n must be >= 0, got n={n}")
if overhead_s <= 0 or seconds_per_element <= 0:
    raise ValueError(f"costs must be positive, got overhead_s={overhead_s}, "
                     f"seconds_per_element={seconds_per_element}")
launches = 0 if k == 0 else (1 if fused else k)
return launches, float(launches * (overhead_s + n * seconds_per_element))
