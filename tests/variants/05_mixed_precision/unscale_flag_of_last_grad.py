# cell: unscale_grads
# loses: test_unscale_grads test_mixed_precision_step
# overwrites the flag for each gradient: only the last parameter's inf or NaN is reported
found = False
for p in params:
    if p.grad is None:
        continue
    p.grad.div_(scale)
    found = not bool(torch.isfinite(p.grad).all())
return found
