# cell: format_limits
# scores: full
bias = 2 ** (exponent_bits - 1) - 1
return {  # numpy float64s: floats too
    "eps": np.ldexp(1.0, -mantissa_bits),
    "max": np.ldexp(2.0 - np.ldexp(1.0, -mantissa_bits), bias),
    "min_normal": np.ldexp(1.0, 1 - bias),
    "min_subnormal": np.ldexp(1.0, 1 - bias - mantissa_bits),
}
