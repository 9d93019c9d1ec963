# cell: unscale_grads
# loses: test_unscale_grads
for p in params:
    if p.grad is None:
        continue
    p.grad.div_(scale)
    if not bool(torch.isfinite(p.grad).all()):
        return True
return False
