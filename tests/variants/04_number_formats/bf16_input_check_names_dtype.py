# cell: round_to_bf16
# scores: full
if x.dtype == torch.bfloat16 or x.dtype != torch.float32:  # names the dtype, converts nothing
    raise TypeError(f"round_to_bf16 rounds float32 to the {torch.bfloat16} grid; got {x.dtype}")
bits = x.view(torch.int32)
rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) & -0x10000
return torch.where(torch.isnan(x), x, rounded.view(torch.float32))
