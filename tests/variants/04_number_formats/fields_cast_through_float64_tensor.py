# cell: float32_fields
# scores: full
# lets a float64 tensor's cast to float32 do the rounding (nearest even, overflow to inf, underflow to signed zero), then masks the bits
bits = int(torch.tensor(float(x), dtype=torch.float64).to(torch.float32).view(torch.int32).item()) & 0xFFFFFFFF
return bits >> 31, (bits >> 23) & 0xFF, bits & 0x7FFFFF
