# cell: round_to_bf16
# scores: full
if not isinstance(x, torch.Tensor) or x.dtype != torch.float32:
    raise TypeError(f"round_to_bf16 takes a float32 tensor (not bfloat16 or {type(x).__name__})")
drop = torch.finfo(torch.float32).bits - torch.finfo(torch.bfloat16).bits  # 16 dropped bits
bits = x.view(torch.int32)
lsb = (bits >> drop) & 1
rounded = (bits + (1 << (drop - 1)) - 1 + lsb) >> drop << drop
return torch.where(x.isnan(), x, rounded.view(torch.float32))
