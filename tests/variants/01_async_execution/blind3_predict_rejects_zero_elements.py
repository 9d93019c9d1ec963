# cell: predict_chain
# loses: test_predict_chain
# Reads "a negative k or n is a ValueError" as "sizes must be positive" for n: an empty tensor
# (n = 0) is rejected. The contract only rejects negative sizes; n = 0 is admitted and its chain
# costs the launch overhead only (k launches eager, 1 fused).
if k < 0:
    raise ValueError(f"k must be >= 0 (ops in the chain), got k={k}")
if n < 1:
    raise ValueError(f"n must be a positive number of elements, got n={n}")
launches = 0 if k == 0 else (1 if fused else k)
return launches, float(launches * (overhead_s + n * seconds_per_element))
