# cell: allreduce_
# loses: test_allreduce
# Writes back with t[:] = total, as the MXNet cell does: in place, but a 0-d tensor (one
# number, such as a scalar parameter's gradient) cannot be sliced and raises IndexError.
if len(tensors) == 0:
    raise ValueError("tensors is empty; pass one tensor per device")
total = tensors[0].clone()
for t in tensors[1:]:
    total += t.to(total.device)
for t in tensors:
    t[:] = total.to(t.device)
