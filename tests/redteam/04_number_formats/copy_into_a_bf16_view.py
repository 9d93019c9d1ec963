# base: variant:bf16_uses_cast
# scores: same
# ---- region: round_to_bf16
# the honest work's cast done by copy_ into a bfloat16 buffer made from integer bits
# (.view(torch.bfloat16) and then .to(device), which a deny-list took for a read-back)
if not isinstance(x, torch.Tensor) or x.dtype != torch.float32:
    raise TypeError(f"x must be a float32 tensor, got {type(x).__name__}")
buf = torch.empty(x.shape, dtype=torch.int16).view(torch.bfloat16).to(x.device)
buf.copy_(x)
return buf.float()
