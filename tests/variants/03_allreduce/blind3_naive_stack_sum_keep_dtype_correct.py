# cell: naive_allreduce
# scores: full
# Correct, vectorised style: one stacked sum with the inputs' dtype kept explicitly (no promotion of int32/bool to
# int64), then one separate clone per worker; the inputs are only read.
dtype = buffers[0].dtype
total = torch.stack(buffers).sum(dim=0, dtype=dtype)
return [total.clone() for _ in range(len(buffers))]
