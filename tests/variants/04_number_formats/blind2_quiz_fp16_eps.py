# cell: quiz
# loses: test_quiz
# Mixes BF16 up with FP16: 2**-10 is FP16's eps (10 mantissa bits); with BF16's 7 bits, 1 + 2**-10 rounds back to
# 1, and the smallest power of two that survives is 2**-7. The form is right (a set, a power of two as a float),
# so only the hidden value check can catch it.
return {"finite_70000": {"fp32", "tf32", "bf16"}, "bf16_smallest_update": 2.0 ** -10}
