# cell: round_to_bf16
# loses: test_round_to_bf16_random test_round_to_bf16_special
bits = x.view(torch.int32)
return (bits & -0x10000).view(torch.float32)  # chops the low bits: rounds toward zero
