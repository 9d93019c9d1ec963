# cell: quiz
# loses: test_quiz
# the right formats as a frozenset: the contract asks for a set
return {"finite_70000": frozenset({"fp32", "tf32", "bf16"}), "bf16_smallest_update": 2.0 ** -7}
