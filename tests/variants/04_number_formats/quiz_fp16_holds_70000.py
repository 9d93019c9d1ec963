# cell: quiz
# loses: test_quiz
return {"finite_70000": {"fp32", "tf32", "bf16", "fp16"}, "bf16_smallest_update": 2.0 ** -7}
