# cell: round_to_bf16
# scores: full
# NaN and infinity found with integer operations only (all-ones exponent field) and both kept as they are; an
# infinity's low bits are zero, so keeping it equals rounding it.
bits = x.view(torch.int32)
rounded = (bits + (0x7FFF + ((bits >> 16) & 1))) & ~0xFFFF
special = (bits & 0x7F800000) == 0x7F800000
return torch.where(special, bits, rounded).view(torch.float32)
