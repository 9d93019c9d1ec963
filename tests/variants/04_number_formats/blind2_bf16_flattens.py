# cell: round_to_bf16
# loses: test_round_to_bf16_random
# Works on a flattened copy and returns it flat: bit-exact for 1-D inputs, but a (4, 5) x comes back with shape
# (20,). Breaks "x is a float32 tensor of any shape; return a new float32 tensor holding each value" (same shape);
# a test that only feeds 1-D tensors misses it.
bits = x.reshape(-1).view(torch.int32)
rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) & -0x10000
return torch.where(torch.isnan(x.reshape(-1)), bits, rounded).view(torch.float32)
