# cell: format_limits
# loses: test_format_limits
bias = 2 ** (exponent_bits - 1) - 1
return {
    "eps": 2.0 ** -mantissa_bits,
    "max": 2.0 ** (bias + 1) - 2.0 ** (bias - mantissa_bits),  # 2.0 ** 1024 overflows for float64's layout
    "min_normal": 2.0 ** (1 - bias),
    "min_subnormal": 2.0 ** (1 - bias - mantissa_bits),
}
