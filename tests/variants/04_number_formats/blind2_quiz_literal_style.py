# cell: quiz
# scores: full
# Correct, in another style: dict() with keyword arguments, the set built from a list, and the power of two written
# as a division (1 / 128 is the float 0.0078125 = 2**-7, BF16's eps: 1 + 2**-8 is a tie and goes to even, 1).
return dict(finite_70000=set(["fp32", "tf32", "bf16"]), bf16_smallest_update=1 / 128)
