# cell: unscale_grads
# loses: test_unscale_grads
# GradScaler's fused kernel, as GradScaler calls it: it checks each value before it multiplies
# by the inverse scale, so [3e37] unscaled by 2^-4 becomes inf with the flag still 0.
grads = [p.grad for p in params if p.grad is not None]
if not grads:
    return False
found_inf = torch.zeros(1)
torch._amp_foreach_non_finite_check_and_unscale_(grads, found_inf, torch.full((1,), 1.0 / scale))
return bool(found_inf.item())
