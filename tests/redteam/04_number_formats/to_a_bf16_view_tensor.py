# base: variant:bf16_uses_cast
# scores: same
# ---- region: round_to_bf16
# the honest work's cast written as x.to(<tensor>), which casts to that tensor's dtype; the
# tensor is integer bits viewed as bfloat16
if not isinstance(x, torch.Tensor) or x.dtype != torch.float32:
    raise TypeError(f"x must be a float32 tensor, got {type(x).__name__}")
like = torch.zeros(1, dtype=torch.int16).view(torch.bfloat16).to(x.device)
return x.to(like).float()
