# cell: unscale_grads
# loses: test_unscale_grads
found_inf = False
for p in params:
    if p.grad is None:
        continue
    if not bool(torch.isfinite(p.grad).all()):
        found_inf = True
    p.grad.div_(scale)
return found_inf
