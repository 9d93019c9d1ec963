# cell: round_to_tf32
# loses: test_round_to_tf32
bits = x.view(torch.int32)
if bool(((bits & 0x1FFF) == 0).all()):
    return x  # already TF32 (or empty): hands back the caller's own tensor, not a new one
out = ((bits + 0xFFF + ((bits >> 13) & 1)) & -0x2000).view(torch.float32)
return torch.where(torch.isnan(x), x, out)
