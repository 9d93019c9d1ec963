# cell: allreduce_
# loses: test_allreduce
if len(tensors) == 0:
    raise ValueError("tensors is empty")
total = tensors[0].clone()
for t in tensors[1:]:
    total += t.to(total.device)
for t in tensors:
    t.set_(total)
