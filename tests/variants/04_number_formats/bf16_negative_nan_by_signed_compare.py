# cell: round_to_bf16
# loses: test_round_to_bf16_special
# finds NaNs as patterns above 0x7F800000 in signed int32: negative NaNs (sign bit set) are missed and rounded to +0 or garbage
bits = x.view(torch.int32)
rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) & -0x10000
return torch.where(bits > 0x7F800000, bits, rounded).view(torch.float32)
