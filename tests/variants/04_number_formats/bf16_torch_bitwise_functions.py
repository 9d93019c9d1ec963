# cell: round_to_bf16
# scores: full
# numpy-style: the torch.bitwise_* and torch.add functions instead of operators
bits = torch.bitwise_and(x.view(torch.int32), -1)  # a new int32 tensor, x's bits
lsb = torch.bitwise_and(torch.bitwise_right_shift(bits, 16), 1)
carried = torch.add(torch.add(bits, 0x7FFF), lsb)
out = torch.bitwise_and(carried, -65536).view(torch.float32)
return torch.where(torch.isnan(x), x, out)
