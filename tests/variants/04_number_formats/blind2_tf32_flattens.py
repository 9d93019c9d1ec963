# cell: round_to_tf32
# loses: test_round_to_tf32 test_tf32_matmul
# Returns the rounded values flattened to 1-D: bit-exact on the 1-D inputs round_to_tf32's visible test uses,
# but a (32, 64) matrix comes back as (2048,), so tf32_matmul (which rounds matrices with it) breaks. Breaks
# "float32 tensor in, new float32 tensor out" of the same shape ("any shape", as in exercise 4).
flat = x.reshape(-1)
bits = flat.view(torch.int32)
rounded = (bits + 0x0FFF + ((bits >> 13) & 1)) & -0x2000
return torch.where(torch.isnan(flat), bits, rounded).view(torch.float32)
