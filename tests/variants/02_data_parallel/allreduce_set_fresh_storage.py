# cell: allreduce_
# loses: test_allreduce
# The sum lands in a new buffer per tensor: right values, distinct buffers, same objects, but
# not in the tensors' own memory (a view of a gradient bucket would never see it).
if len(tensors) == 0:
    raise ValueError("tensors is empty")
total = tensors[0].clone()
for t in tensors[1:]:
    total += t.to(total.device)
for t in tensors:
    t.set_(total.to(t.device).clone())
