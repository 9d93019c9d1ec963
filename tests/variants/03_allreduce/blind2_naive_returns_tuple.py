# cell: naive_allreduce
# loses: test_naive_allreduce
# Right values, own memory, inputs untouched, but returns a tuple (a generator turned tuple), not a list.
# Breaks: the return type "list[torch.Tensor]".
total = torch.stack(buffers).sum(0)
return tuple(total.clone() for _ in buffers)
