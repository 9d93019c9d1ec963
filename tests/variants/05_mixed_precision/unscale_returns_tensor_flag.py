# cell: unscale_grads
# loses: test_unscale_grads
# A device-side flag, as Going further suggests, returned as it is: a 0-d bool tensor, not a bool.
found_inf = torch.zeros((), dtype=torch.bool)
for p in params:
    if p.grad is None:
        continue
    p.grad.div_(scale)
    found_inf |= ~torch.isfinite(p.grad).all()
return found_inf
