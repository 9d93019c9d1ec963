# cell: float32_fields
# loses: test_float32_fields
# Special-cases NaN by hand as the canonical quiet NaN (0, 255, 0x400000). A cast keeps the sign bit, and the
# top payload bits, of a NaN: float("-nan") (or -math.nan) stored as FP32 is 0xFFC00000, so the sign must be 1.
# Breaks "a NaN stays a NaN with its sign" for negative NaNs.
x = float(x)
if math.isnan(x):
    return 0, 255, 0x400000
bits = int(torch.tensor(x, dtype=torch.float64).to(torch.float32).view(torch.int32).item()) & 0xFFFFFFFF
return bits >> 31, (bits >> 23) & 0xFF, bits & 0x7FFFFF
