# cell: float32_fields
# loses: test_float32_fields
x = float(x)
sign = int(math.copysign(1.0, x) < 0)
if math.isnan(x):
    return sign, 255, 0x400000
if math.isinf(x) or x == 0:
    return sign, 255 if math.isinf(x) else 0, 0
m, e = math.frexp(abs(x))  # |x| = m * 2**e, 0.5 <= m < 1
if e - 1 >= -126:
    return sign, e - 1 + 127, int((2 * m - 1) * 2**23 + 0.5)  # half up, no carry, no overflow
return sign, 0, int(abs(x) / 2.0**-149 + 0.5)
