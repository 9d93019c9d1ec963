# cell: unscale_grads
# loses: test_unscale_grads
# One check per parameter on the sum of its gradient: inf and NaN propagate into a sum, but
# finite values whose sum overflows FP32 are reported as an overflow too.
found_inf = False
for p in params:
    if p.grad is None:
        continue
    p.grad.div_(scale)
    if not math.isfinite(p.grad.sum().item()):
        found_inf = True
return found_inf
