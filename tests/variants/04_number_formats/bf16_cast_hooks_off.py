# cell: round_to_bf16
# loses: test_round_to_bf16_no_cast
with torch._C.DisableTorchFunction():  # hides the cast from a TorchFunctionMode
    dtype = getattr(torch, "bfloat" + "16")  # and the dtype from a plain text search
    return x.to(dtype).float()
