# cell: float32_fields
# loses: test_float32_fields
# calls every value above FP32's largest finite an infinity, though those within half a step of it round down to max
x = float(x)
if abs(x) > 3.4028234663852886e38:
    return int(math.copysign(1.0, x) < 0), 255, 0
bits = int(torch.tensor(x, dtype=torch.float64).to(torch.float32).view(torch.int32).item()) & 0xFFFFFFFF
return bits >> 31, (bits >> 23) & 0xFF, bits & 0x7FFFFF
