# cell: tf32_matmul
# loses: test_tf32_matmul
# Rounds both inputs to TF32 and accumulates in float64 (allowed: a more accurate accumulator), but forgets to
# come back to float32: the result is a float64 tensor. Breaks "Return the float32 result"; a check on values
# within a bound, or on values that are FP32 numbers anyway (K = 1, the identity), does not see the dtype.
return round_to_tf32(a).double() @ round_to_tf32(b).double()
