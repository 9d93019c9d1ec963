# cell: unscale_grads
# loses: test_unscale_grads
found_inf = False
for p in params:
    if p.grad is None:
        continue
    p.grad = p.grad / scale
    if not bool(torch.isfinite(p.grad).all()):
        found_inf = True
return found_inf
