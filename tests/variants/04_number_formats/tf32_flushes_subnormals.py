# cell: round_to_tf32
# loses: test_round_to_tf32
# flushes FP32 subnormals to signed zero ("tensor cores flush denormals"), though TF32 has FP32's subnormals and the largest round up to the smallest normal
bits = x.view(torch.int32)
rounded = (bits + 0xFFF + ((bits >> 13) & 1)) & -0x2000
rounded = torch.where(((bits >> 23) & 0xFF) == 0, bits & -0x80000000, rounded)
return torch.where(torch.isnan(x), bits, rounded).view(torch.float32)
