# cell: format_limits
# loses: test_format_limits
# puts the smallest subnormal at 2**(-bias - m) (exponent field 0 read as -bias), half the true 2**(1 - bias - m)
bias = 2 ** (exponent_bits - 1) - 1
eps = 2.0 ** -mantissa_bits
return {"eps": eps, "max": (2.0 - eps) * 2.0**bias, "min_normal": 2.0 ** (1 - bias),
        "min_subnormal": 2.0 ** (-bias - mantissa_bits)}
