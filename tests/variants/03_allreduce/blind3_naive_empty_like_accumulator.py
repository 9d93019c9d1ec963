# cell: naive_allreduce
# loses: test_naive_allreduce
# The accumulator is torch.empty_like: uninitialised memory, not zeros. Breaks "each the element-wise sum":
# the result is the sum plus whatever bytes the allocator handed back (often zero for a fresh page, garbage for a
# reused block), so a catch depends on the allocator's state, the machine and the order of earlier cells.
total = torch.empty_like(buffers[0])  # worker 0's receive-and-add buffer
for b in buffers:
    total += b
return [total.clone() for _ in buffers]
