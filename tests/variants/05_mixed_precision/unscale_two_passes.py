# cell: unscale_grads
# loses: test_unscale_grads
# divides in one pass and checks in a second: a generator of parameters (model.parameters()) is empty the second time, so nothing is found
for p in params:
    if p.grad is not None:
        p.grad.div_(scale)
return any(not bool(torch.isfinite(p.grad).all()) for p in params if p.grad is not None)
