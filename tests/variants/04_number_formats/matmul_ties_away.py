# cell: tf32_matmul
# loses: test_tf32_matmul
def round_ties_away(t):
    out = ((t.view(torch.int32) + 0x1000) & -0x2000).view(torch.float32)  # like cvt.rna
    return torch.where(torch.isnan(t), t, out)


return round_ties_away(a) @ round_ties_away(b)
