# cell: naive_allreduce
# loses: test_naive_allreduce
total = buffers[0].clone()
for b in buffers[1:]:
    total += b
return [total] * len(buffers)  # every worker gets the same tensor object, not its own copy
