# cell: round_to_bf16
# scores: full
# Correct, written as the rule itself rather than the 0x7FFF + L trick: clear the low 16 bits, then add one unit
# (1 << 16) where the dropped part D is above half, or exactly half with an odd kept part. The carry still walks
# into the exponent (to the next power of two, to infinity, subnormal to normal); NaNs are passed through.
bits = x.view(torch.int32)
dropped = bits & 0xFFFF
odd = ((bits >> 16) & 1) == 1
up = (dropped > 0x8000) | ((dropped == 0x8000) & odd)
rounded = (bits & -0x10000) + (up.to(torch.int32) << 16)
return torch.where(torch.isnan(x), bits, rounded).view(torch.float32)
