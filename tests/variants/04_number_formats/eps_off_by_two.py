# cell: format_limits
# loses: test_format_limits
bias = 2 ** (exponent_bits - 1) - 1
return {
    "eps": 2.0 ** -(mantissa_bits + 1),  # half an ulp (unit roundoff), not the gap above 1
    "max": (2 - 2.0 ** -mantissa_bits) * 2.0 ** bias,
    "min_normal": 2.0 ** (1 - bias),
    "min_subnormal": 2.0 ** (1 - bias - mantissa_bits),
}
