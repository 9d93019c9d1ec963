# cell: unscale_grads
# region: 1
# scores: full
# Correct, in the "Going further" style: one fused in-place division (torch._foreach_div_) of
# every existing gradient, then the check on the unscaled values, kept as one flag tensor per
# device and read once per device at the end. The generator is walked once; None grads skipped;
# returns a Python bool.
grads = [p.grad for p in params if p.grad is not None]
if not grads:
    return False
torch._foreach_div_(grads, scale)
flags = {}
for g in grads:
    bad = torch.logical_not(torch.isfinite(g)).any()
    flags[g.device] = (flags[g.device] | bad) if g.device in flags else bad
return any(bool(flag) for flag in flags.values())
