# cell: predict_chain
# loses: test_predict_chain
# One message for both bad sizes, which names neither k nor n.
if k < 0 or n < 0:
    raise ValueError("the chain length and the tensor size must be non-negative")
launches = (1 if k else 0) if fused else k
return launches, float(launches * (overhead_s + n * seconds_per_element))
