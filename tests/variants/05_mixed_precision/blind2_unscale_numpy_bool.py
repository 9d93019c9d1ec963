# cell: unscale_grads
# region: 1
# loses: test_unscale_grads
# Divides in place, one flag per gradient, then np.any over the flags. The value is right but
# np.any returns numpy.bool_, not a Python bool (the promise: "else False (a Python bool)");
# `found is True` / `type(found) is bool` fail, and json.dumps of it raises.
import numpy as np
flags = []
for p in params:
    if p.grad is None:
        continue
    p.grad.div_(scale)
    flags.append(not torch.isfinite(p.grad).all().item())
return np.any(flags)
