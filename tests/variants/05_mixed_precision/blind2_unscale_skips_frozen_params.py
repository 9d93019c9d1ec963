# cell: unscale_grads
# region: 1
# loses: test_unscale_grads
# Skips parameters with requires_grad=False ("frozen parameters are not trained"), even when
# they hold a .grad (set by hand, or left from before they were frozen). Breaks "for every
# parameter in params that has a .grad, divide the gradient": only parameters whose .grad is
# None may be skipped, and an inf in a frozen parameter's gradient goes unreported.
found_inf = False
for p in params:
    if not p.requires_grad or p.grad is None:
        continue
    p.grad.div_(scale)
    if not bool(torch.isfinite(p.grad).all()):
        found_inf = True
return found_inf
