# cell: float32_fields
# loses: test_round_to_bf16_no_cast test_round_to_tf32
# Right on Exercise 1 (ctypes.c_float is a C cast: nearest-even, overflow to inf, signed zero), but `import ctypes`
# anywhere in the notebook fails Exercises 4 and 5, whose grading reads the whole notebook: ctypes can change how
# all later code runs (Exercise 4's markdown says so). Kept to pin that rule.
import ctypes

stored = ctypes.c_float(float(x))
bits = ctypes.cast(ctypes.pointer(stored), ctypes.POINTER(ctypes.c_uint32)).contents.value
return int(bits >> 31), int((bits >> 23) & 0xFF), int(bits & 0x7FFFFF)
