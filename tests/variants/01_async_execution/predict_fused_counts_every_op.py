# cell: predict_chain
# loses: test_predict_chain
# fusion cuts the time per element but not the number of launches
if k < 0 or n < 0:
    raise ValueError(f"k and n must not be negative: k={k}, n={n}")
launches = int(k)
passes = min(k, 1) if fused else k
return launches, float(launches * overhead_s + passes * n * seconds_per_element)
