# cell: allreduce_
# loses: test_allreduce
# Works on flat views, and "fixes" the error view(-1) gives on a non-contiguous tensor with
# .contiguous(): for a non-contiguous tensor (a transposed or strided gradient view) that returns
# a copy, so the sum is written into the copy and the tensor itself keeps its old values. Breaks
# "holds the sum in its own memory, where every view of it sees it" for non-contiguous layouts.
if not tensors:
    raise ValueError("allreduce_ needs at least one tensor")
home = tensors[0].device
flat_total = tensors[0].reshape(-1).to(home, copy=True)
for t in tensors[1:]:
    flat_total += t.reshape(-1).to(home)
for t in tensors:
    t.contiguous().view(-1).copy_(flat_total)
