# cell: round_to_tf32
# loses: test_round_to_tf32
return (x.view(torch.int32) & -0x2000).view(torch.float32)
