# cell: naive_allreduce
# scores: full
# One reduction over the stacked buffers, kept in the inputs' dtype, then a copy per worker.
total = torch.stack(list(buffers)).sum(dim=0, dtype=buffers[0].dtype)
return [total.clone() for _ in range(len(buffers))]
