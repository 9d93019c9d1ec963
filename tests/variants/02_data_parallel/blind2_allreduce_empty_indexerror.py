# cell: allreduce_
# loses: test_allreduce
# No check for the empty list: tensors[0] raises IndexError, not ValueError. Breaks
# "Raise ValueError for an empty list" (the visible test never passes an empty list).
home = tensors[0].device
total = tensors[0].clone()
for t in tensors[1:]:
    total += t.to(home)
for t in tensors:
    t.copy_(total)
