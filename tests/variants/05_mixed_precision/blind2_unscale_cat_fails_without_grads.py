# cell: unscale_grads
# region: 1
# loses: test_unscale_grads
# Divides in place, then checks all gradients at once with one torch.cat. Breaks "any iterable
# of parameters ... skip parameters whose .grad is None": when no parameter has a gradient (an
# empty iterable, a model before its first backward, a frozen sub-model) torch.cat([]) raises
# ValueError (RuntimeError in older torch) instead of returning False; gradients on two
# devices make it raise too.
grads = [p.grad for p in params if p.grad is not None]
for g in grads:
    g.div_(scale)
return not bool(torch.isfinite(torch.cat([g.reshape(-1) for g in grads])).all())
