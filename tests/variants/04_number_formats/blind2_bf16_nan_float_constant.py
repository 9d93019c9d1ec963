# cell: round_to_bf16
# loses: test_round_to_bf16_no_cast
# Rounds correctly, then writes NaNs as float("nan") into the float result (torch.where with a float constant):
# the list forbids float constants (and float() itself); a NaN is a NaN, so only the source check can see it.
bits = x.view(torch.int32)
rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) & -0x10000).view(torch.float32)
return torch.where(torch.isnan(x), float("nan"), rounded)
