# cell: float32_fields
# loses: test_float32_fields
# reads the sign as x < 0 instead of from the sign bit: -0.0 (and a negative value that rounds to -0) gets sign 0
x = float(x)
bits = int(torch.tensor(x, dtype=torch.float64).to(torch.float32).view(torch.int32).item()) & 0xFFFFFFFF
return int(x < 0), (bits >> 23) & 0xFF, bits & 0x7FFFFF
