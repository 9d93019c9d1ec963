# cell: round_to_bf16
# scores: full
# Correct, another spelling: bit-exact in 64-bit integers, converting with .long() and .int(), which the list
# allows beside .to(<integer dtype written out>).
bits = x.view(torch.int32).long()
rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) & -0x10000).int()
return torch.where(torch.isnan(x), x.view(torch.int32), rounded).view(torch.float32)
