# cell: format_limits
# scores: full
# Correct, written with hexadecimal float literals and math.ldexp: every limit is an exact power of two or
# (2 - eps) times one, so float.fromhex and ldexp give them exactly, down to float64's subnormal 2**-1074.
bias = (1 << (exponent_bits - 1)) - 1
eps = float.fromhex(f"0x1p-{mantissa_bits}")
return dict(
    eps=eps,
    max=math.ldexp(2.0 - eps, bias),
    min_normal=float.fromhex(f"0x1p{1 - bias}"),
    min_subnormal=math.ldexp(1.0, 1 - bias - mantissa_bits),
)
