# cell: round_to_tf32
# loses: test_round_to_tf32
# Finds NaNs by a signed compare of the int32 pattern, bits > 0x7F800000: every negative NaN is a negative int32
# and is rounded like a number. 0xFFFFFFFF + 0x1000 wraps to 0x00000FFF and becomes +0.0; 0xFF800001 becomes
# -inf. Breaks "NaN stays NaN"; the visible test has only a positive NaN (0x7F800001).
bits = x.view(torch.int32)
is_nan = bits > 0x7F800000
rounded = (bits + 0x0FFF + ((bits >> 13) & 1)) & -0x2000
return torch.where(is_nan, bits, rounded).view(torch.float32)
