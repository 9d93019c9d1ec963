# cell: round_to_bf16
# loses: test_round_to_bf16_no_cast
# Bit-exact, but the last kept bit is found with torch.div(..., rounding_mode="floor"), which is not on the
# exercise's list (torch.floor_divide and // are; torch.div is also float division when rounding_mode is left
# out). Breaks "only these operations are allowed"; a source reader that only looks for casts misses it.
bits = x.view(torch.int32)
kept_lsb = torch.div(bits, 1 << 16, rounding_mode="floor") & 1
rounded = (bits + 0x7FFF + kept_lsb) & -0x10000
return torch.where(torch.isnan(x), bits, rounded).view(torch.float32)
