# cell: float32_fields
# loses: test_float32_fields
# rounds by a cast, then reads the fields with frexp as if every nonzero finite value were normal: subnormals get a wrong exponent and mantissa
v = float(torch.tensor(float(x), dtype=torch.float64).to(torch.float32))
sign = int(math.copysign(1.0, v) < 0)
if math.isnan(v):
    return sign, 255, 1 << 22
if math.isinf(v):
    return sign, 255, 0
if v == 0:
    return sign, 0, 0
m, e = math.frexp(abs(v))  # |v| = m * 2**e, 0.5 <= m < 1
return sign, e - 1 + 127, int((2 * m - 1) * 2**23)
