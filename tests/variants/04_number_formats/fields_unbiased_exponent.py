# cell: float32_fields
# loses: test_float32_fields
bits = int(torch.tensor(float(x), dtype=torch.float32).view(torch.int32).item()) & 0xFFFFFFFF
return bits >> 31, ((bits >> 23) & 0xFF) - 127, bits & 0x7FFFFF  # unbiased, not the raw field
