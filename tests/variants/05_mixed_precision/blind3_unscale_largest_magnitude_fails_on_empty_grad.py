# cell: unscale_grads
# loses: test_unscale_grads
# Breaks "for every parameter that has a .grad" on parameters with no elements: the check reads
# each gradient's largest magnitude (abs().max(), which propagates NaN, so inf and NaN are both
# found), and max() of an empty tensor raises RuntimeError. A model with a zero-size parameter
# (nn.Linear(0, n), an empty bias or an unused embedding slot of size 0) crashes the step.
found = False
for p in params:
    if p.grad is None:
        continue
    p.grad.div_(scale)
    largest = p.grad.abs().max().item()
    if not math.isfinite(largest):
        found = True
return found
