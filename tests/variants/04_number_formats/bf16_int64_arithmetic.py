# cell: round_to_bf16
# scores: full
bits = x.contiguous().view(torch.int32).to(torch.int64) & 0xFFFFFFFF  # unsigned pattern
dropped, kept = bits & 0xFFFF, bits >> 16
up = (dropped > 0x8000) | ((dropped == 0x8000) & (kept & 1 == 1))
out = ((kept + up.to(torch.int64)) << 16).to(torch.int32)  # wraps like the 32-bit register
return torch.where(torch.isnan(x), x, out.view(torch.float32))
