# cell: allreduce_
# loses: test_allreduce
# `.data = ...` swaps each tensor's buffer for a fresh one holding the sum: not in place.
if len(tensors) == 0:
    raise ValueError("tensors is empty")
total = tensors[0].clone()
for t in tensors[1:]:
    total += t.to(total.device)
for t in tensors:
    t.data = total.to(t.device).clone()
