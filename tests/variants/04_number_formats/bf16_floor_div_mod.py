# cell: round_to_bf16
# scores: full
# the unsigned pattern split with // and % instead of >> and &, the tie decided by comparisons
u = x.view(torch.int32).to(torch.int64) % 2**32
low, high = u % 65536, u // 65536
up = (low > 32768) | ((low == 32768) & (high % 2 == 1))
r = ((high + up.to(torch.int64)) * 65536).to(torch.int32)  # wraps like the 32-bit register
return torch.where(x != x, x, r.view(torch.float32))
