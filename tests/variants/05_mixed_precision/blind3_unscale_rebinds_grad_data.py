# cell: unscale_grads
# loses: test_unscale_grads
# Breaks "divide the gradient by scale in place" (the judge reads the memory each .grad was given): `p.grad.data = p.grad.data / scale` keeps the
# same Python tensor object as p.grad (so `p.grad is g` still holds and g shows the new values),
# but swaps in a new storage. Anything that shares the old storage (a view of the gradient, a
# flat gradient buffer the grads are views into, data_ptr()) still holds the scaled values.
found = False
for p in params:
    if p.grad is None:
        continue
    p.grad.data = p.grad.data / scale
    if not bool(torch.isfinite(p.grad).all()):
        found = True
return found
