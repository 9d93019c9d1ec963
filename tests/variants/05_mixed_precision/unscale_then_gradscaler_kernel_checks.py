# cell: unscale_grads
# scores: full
# Unscale first, then let GradScaler's fused kernel check the unscaled values (inverse scale 1),
# one flag tensor read once: the device-side version Going further asks for.
grads = [p.grad for p in params if p.grad is not None]
if not grads:
    return False
torch._foreach_div_(grads, scale)
found_inf = torch.zeros(1, device=grads[0].device)
torch._amp_foreach_non_finite_check_and_unscale_(grads, found_inf, torch.ones(1, device=grads[0].device))
return bool(found_inf.item())
