# cell: unscale_grads
# loses: test_unscale_grads
# forgets parameters without a gradient: p.grad None raises AttributeError
found = False
for p in params:
    p.grad.div_(scale)
    if not bool(torch.isfinite(p.grad).all()):
        found = True
return found
