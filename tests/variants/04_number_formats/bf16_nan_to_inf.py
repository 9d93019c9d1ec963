# cell: round_to_bf16
# loses: test_round_to_bf16_special
bits = x.view(torch.int32)
rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) & -0x10000  # no NaN case: low-payload NaNs become inf
return rounded.view(torch.float32)
