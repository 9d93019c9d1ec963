# cell: unscale_grads
# scores: full
grads = [p.grad for p in params if p.grad is not None]
if not grads:
    return False
torch._foreach_mul_(grads, 1.0 / scale)
return not bool(torch.stack([torch.isfinite(g).all() for g in grads]).all())
