# cell: allreduce_
# loses: test_allreduce
# Does the in-place work right, then also returns the summed tensor "for convenience". Breaks
# "return nothing" (an in-place function in PyTorch's naming returns None here; the visible test
# ignores the return value).
if not tensors:
    raise ValueError("allreduce_ needs at least one tensor")
home = tensors[0].device
total = tensors[0].clone()
for t in tensors[1:]:
    total += t.to(home)
for t in tensors:
    t.copy_(total)
return total
