# cell: float32_fields
# scores: full
x = float(x)
sign = int(math.copysign(1.0, x) < 0)
if math.isnan(x):
    return sign, 255, 0x400000
a = abs(x)
if math.isinf(a):
    return sign, 255, 0
if a >= 2.0 ** -126:
    m, e = math.frexp(a)               # a = m * 2**e, 0.5 <= m < 1
    exponent, mantissa = e - 1 + 127, round((2 * m - 1) * 2 ** 23)  # round(): ties to even
    if mantissa == 2 ** 23:            # rounded up into the next power of two
        exponent, mantissa = exponent + 1, 0
    if exponent >= 255:                # beyond the largest finite FP32
        return sign, 255, 0
    return sign, exponent, mantissa
mantissa = round(a / 2.0 ** -149)      # subnormals: multiples of 2**-149, exact in float64
return (sign, 1, 0) if mantissa == 2 ** 23 else (sign, 0, mantissa)
