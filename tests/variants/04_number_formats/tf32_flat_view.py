# cell: round_to_tf32
# loses: test_round_to_tf32 test_tf32_matmul
bits = x.view(-1).view(torch.int32)  # view(-1) needs contiguous memory: fails on a transposed x
out = ((bits + 0xFFF + ((bits >> 13) & 1)) & -0x2000).view(torch.float32)
return torch.where(torch.isnan(x.view(-1)), x.view(-1), out).view(x.shape)
