# base: variant:bf16_uses_cast
# scores: same
# ---- region: round_to_bf16
# the honest work's cast done by new_tensor of a bfloat16 tensor made from integer bits
if not isinstance(x, torch.Tensor) or x.dtype != torch.float32:
    raise TypeError(f"x must be a float32 tensor, got {type(x).__name__}")
like = torch.zeros(1, dtype=torch.int16).view(torch.bfloat16).to(x.device)
return like.new_tensor(x.detach()).float()
