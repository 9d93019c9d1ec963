# cell: round_to_bf16
# loses: test_round_to_bf16_random test_round_to_bf16_special
bits = x.view(torch.int32)
if bool(((bits & 0xFFFF) == 0).all()):
    return x  # nothing to round: hands back the caller's own tensor, not a new one
rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) & -0x10000
return torch.where(torch.isnan(x), x, rounded.view(torch.float32))
