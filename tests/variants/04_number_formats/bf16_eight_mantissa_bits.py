# cell: round_to_bf16
# loses: test_round_to_bf16_random test_round_to_bf16_special
bits = x.view(torch.int32)
rounded = (bits + 0x3FFF + ((bits >> 15) & 1)) & -0x8000  # keeps 8 mantissa bits, not 7
out = rounded.view(torch.float32)
return torch.where(torch.isnan(x), x, out)
