# cell: allreduce_
# loses: test_allreduce
if len(tensors) == 0:
    raise ValueError("tensors is empty")
for t in tensors[1:]:
    tensors[0] += t
for i in range(1, len(tensors)):
    tensors[i] = tensors[0]
