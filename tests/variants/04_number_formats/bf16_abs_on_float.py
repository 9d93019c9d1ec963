# cell: round_to_bf16
# loses: test_round_to_bf16_no_cast
# Bit-exact results, but takes the magnitude with x.abs(), arithmetic on a float tensor: breaks "only these
# operations are allowed ... (arithmetic on a float tensor is not allowed)".
bits = x.view(torch.int32)
mag = x.abs().view(torch.int32)
sign = bits & -0x80000000
rounded = ((mag + 0x7FFF + ((mag >> 16) & 1)) & -0x10000) | sign
return torch.where(torch.isnan(x), x, rounded.view(torch.float32))
