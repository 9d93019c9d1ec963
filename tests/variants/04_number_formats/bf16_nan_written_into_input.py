# cell: round_to_bf16
# loses: test_round_to_bf16_special
bits = x.view(torch.int32)
bits[torch.isnan(x)] = 0x7FC00000  # canonical NaN, written through the view into the caller's x
rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) & -0x10000
return rounded.view(torch.float32)
