# cell: predict_chain
# loses: test_predict_chain
# Follows the section's prose ("every op is one operator launch that reads and writes all n
# elements") instead of the contract, which charges seconds_per_element for every element a launch
# READS: each launch is charged 2 * n elements (read + write). Launch counts, types and errors are right.
if k < 0:
    raise ValueError(f"k must be >= 0, got k={k}")
if n < 0:
    raise ValueError(f"n must be >= 0, got n={n}")
launches = 0 if k == 0 else (1 if fused else k)
return launches, float(launches * (overhead_s + 2 * n * seconds_per_element))
