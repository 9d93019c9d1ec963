# base: variant:bf16_uses_cast
# scores: same
# ---- region: round_to_bf16
# the honest work's cast done by torch.as_tensor with the dtype read off a tensor of integer
# bits viewed as bfloat16 (no dtype is written in the call)
if not isinstance(x, torch.Tensor) or x.dtype != torch.float32:
    raise TypeError(f"x must be a float32 tensor, got {type(x).__name__}")
like = torch.zeros(1, dtype=torch.int16).view(torch.bfloat16).to(x.device)
return torch.as_tensor(x, dtype=like.dtype).float()
