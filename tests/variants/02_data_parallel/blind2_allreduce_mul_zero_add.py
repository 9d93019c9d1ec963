# cell: allreduce_
# loses: test_allreduce
# Writes the sum in place by "zeroing" each tensor with t *= 0 and then adding the total. For a
# tensor holding inf (or nan), inf * 0 is nan, so that element ends up nan where the sum is inf
# (an overflowed gradient becomes nan instead of inf). Breaks "every tensor holds the element-wise
# sum" for non-finite values; t.zero_() or t.copy_(total) would be right.
if not tensors:
    raise ValueError("allreduce_ needs at least one tensor")
home = tensors[0].device
total = tensors[0].clone()
for t in tensors[1:]:
    total += t.to(home)
for t in tensors:
    t.mul_(0)
    t.add_(total.to(t.device))
