# cell: float32_fields
# loses: test_float32_fields
# The sign comes back as a Python bool (bits < 0), not an int: the contract promises three Python ints.
# (0, 127, 0) == (False, 127, 0) in Python, so only a test that checks type(v) is int (not isinstance,
# bool being a subclass of int) catches it.
bits = int(torch.tensor([float(x)], dtype=torch.float32).view(torch.int32).item())
sign = bits < 0
return sign, (bits >> 23) & 0xFF, bits & 0x7FFFFF
