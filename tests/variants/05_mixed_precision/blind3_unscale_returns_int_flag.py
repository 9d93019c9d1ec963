# cell: unscale_grads
# loses: test_unscale_grads
# Breaks "return True ... else False (a Python bool)": the flag is an int OR-ed together from
# per-gradient ints, so the function returns 0 or 1. 0 == False and 1 == True, and `if` reads
# them alike, so only a check of the type (`type(r) is bool`, `r is True`) sees it.
found = 0
for p in params:
    if p.grad is not None:
        p.grad.div_(scale)
        found |= int(not bool(torch.isfinite(p.grad).all()))
return found
