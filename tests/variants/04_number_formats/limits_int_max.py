# cell: format_limits
# loses: test_format_limits
bias = 2 ** (exponent_bits - 1) - 1
return {
    "eps": 2.0 ** -mantissa_bits,
    "max": 2 ** (bias + 1) - 2 ** (bias - mantissa_bits),  # an int: equal in value, wrong type
    "min_normal": 2.0 ** (1 - bias),
    "min_subnormal": 2.0 ** (1 - bias - mantissa_bits),
}
