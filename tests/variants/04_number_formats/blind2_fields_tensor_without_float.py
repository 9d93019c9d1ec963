# cell: float32_fields
# loses: test_float32_fields
# Hands x straight to torch.tensor without float(x): right for floats, ints, Fraction and Decimal (torch calls
# their __float__), but the contract admits "anything float() accepts", and strings are among them: "0.1",
# "inf" and "nan" raise ValueError ("too many dimensions 'str'"), and b"0.1" becomes three numbers (its bytes).
bits = int(torch.tensor([x], dtype=torch.float32).view(torch.int32).item()) & 0xFFFFFFFF
return bits >> 31, (bits >> 23) & 0xFF, bits & 0x7FFFFF
