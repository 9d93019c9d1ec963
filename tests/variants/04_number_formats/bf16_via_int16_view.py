# cell: round_to_bf16
# scores: full
bits = x.view(torch.int32)
upper = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).to(torch.int16)  # the 16 bits BF16 keeps
widened = upper.view(torch.bfloat16).float()  # integer bits read as BF16, widened exactly
return torch.where(torch.isnan(x), x, widened)
