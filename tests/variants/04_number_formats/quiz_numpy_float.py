# cell: quiz
# loses: test_quiz
# the right values, the power of two computed with NumPy and returned as it comes: a
# numpy.float64, which passes isinstance(u, float), but the contract says a Python float
import numpy
return {"finite_70000": {"fp32", "tf32", "bf16"}, "bf16_smallest_update": numpy.float64(2.0) ** -7}
