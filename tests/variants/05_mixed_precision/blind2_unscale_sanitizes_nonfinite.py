# cell: unscale_grads
# region: 1
# loses: test_unscale_grads
# Divides in place and returns the right flag, then "cleans" a gradient that holds inf/NaN
# (nan_to_num_ to 0) so that a later clip_grad_norm_ or logging does not see garbage. Breaks
# "divide the gradient by scale in place" (the call changes more than the division) and the
# flag's meaning: True is returned while no gradient, as it is after the call, holds inf or NaN.
found_inf = False
for p in params:
    if p.grad is None:
        continue
    g = p.grad
    g.div_(scale)
    if not bool(torch.isfinite(g).all()):
        found_inf = True
        g.nan_to_num_(nan=0.0, posinf=0.0, neginf=0.0)
return found_inf
