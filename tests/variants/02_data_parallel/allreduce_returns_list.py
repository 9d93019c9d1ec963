# cell: allreduce_
# loses: test_allreduce
# Right in place, then also returns the list: an in-place function returns nothing (None), as
# torch's own in-place functions of the torch.distributed kind do.
if len(tensors) == 0:
    raise ValueError("tensors is empty; pass one tensor per device")
total = tensors[0].clone()
for t in tensors[1:]:
    total += t.to(total.device)
for t in tensors:
    t.copy_(total.to(t.device))
return tensors
