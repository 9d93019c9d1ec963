# cell: round_to_bf16
# loses: test_round_to_bf16_random test_round_to_bf16_special
# "Subnormals are too small to matter": rounded right everywhere else, but a result whose
# exponent field is 0 is flushed to a zero of its sign, as some hardware does (BF16 casts on
# CPUs and GPUs keep subnormals).
bits = x.view(torch.int32)
rounded = ((bits >> 16) & 1) + 0x7FFF + bits
rounded &= -0x10000
subnormal = (rounded & 0x7F800000) == 0
rounded = torch.where(subnormal, rounded & -0x80000000, rounded)
out = rounded.view(torch.float32)
return torch.where(torch.isnan(x), x, out)
