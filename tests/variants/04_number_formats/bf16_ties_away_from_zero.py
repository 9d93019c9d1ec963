# cell: round_to_bf16
# loses: test_round_to_bf16_special
bits = x.view(torch.int32)
rounded = (bits + 0x8000) & -0x10000  # half a step always: ties go away from zero
out = rounded.view(torch.float32)
return torch.where(torch.isnan(x), x, out)
