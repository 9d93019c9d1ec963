# cell: quiz
# loses: test_quiz
# forgets that TF32 keeps FP32's 8 exponent bits: 70000 is finite in TF32 too
return {"finite_70000": {"fp32", "bf16"}, "bf16_smallest_update": 2.0**-7}
