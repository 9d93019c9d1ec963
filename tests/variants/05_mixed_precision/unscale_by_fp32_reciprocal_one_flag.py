# cell: unscale_grads
# scores: full
# As GradScaler unscales: multiply by the FP32 reciprocal of the scale (computed in FP64), all
# gradients with one foreach call, and one flag tensor that every check adds to, read once.
grads = [p.grad for p in params if p.grad is not None]
inverse = torch.tensor(1.0 / float(scale), dtype=torch.float64).float().item()
if grads:
    torch._foreach_mul_(grads, inverse)
bad = torch.zeros(())
for g in grads:
    bad += (~torch.isfinite(g)).sum()
return bool(bad > 0)
