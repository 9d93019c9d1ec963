# cell: round_to_tf32
# loses: test_round_to_tf32
bits = x.view(torch.int32)
out = ((bits + 0x1000) & -0x2000).view(torch.float32)  # like cvt.rna: ties away from zero
return torch.where(torch.isnan(x), x, out)
