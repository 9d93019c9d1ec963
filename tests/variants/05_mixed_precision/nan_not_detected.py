# cell: unscale_grads
# loses: test_unscale_grads test_mixed_precision_step
found_inf = False
for p in params:
    if p.grad is None:
        continue
    p.grad.div_(scale)
    if bool(torch.isinf(p.grad).any()):
        found_inf = True
return found_inf
