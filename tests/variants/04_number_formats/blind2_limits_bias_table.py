# cell: format_limits
# loses: test_format_limits
# The bias is looked up for the exponent widths the learner knows (5, 8, 11) instead of 2**(e-1) - 1:
# right for FP16, BF16, FP32, FP64 and FP8 E5M2, a KeyError for every other layout (FP8 E4M3 with 4 exponent
# bits, or 6, 7, 9, 10 bits). Breaks "it must work for every layout ... from FP8 up to float64's own".
bias = {5: 15, 8: 127, 11: 1023}[exponent_bits]
eps = 2.0 ** -mantissa_bits
return {
    "eps": eps,
    "max": (2.0 - eps) * 2.0 ** bias,
    "min_normal": 2.0 ** (1 - bias),
    "min_subnormal": 2.0 ** (1 - bias - mantissa_bits),
}
