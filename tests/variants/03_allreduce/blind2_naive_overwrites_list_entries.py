# cell: naive_allreduce
# loses: test_naive_allreduce
# Replaces the caller's list entries with the results and returns that same list: every tensor is untouched,
# but the argument (the list the caller holds) is changed and the "new" list is the input list.
# Breaks: "Leave the inputs untouched" / "Return a list of new tensors" (the container is the input's).
total = buffers[0].clone()
for b in buffers[1:]:
    total += b
for r in range(len(buffers)):
    buffers[r] = total.clone()
return buffers
