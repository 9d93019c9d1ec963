# cell: naive_allreduce
# loses: test_naive_allreduce
total = torch.zeros_like(buffers[0], dtype=torch.float32)  # float32 holds integers exactly only up to 2**24
for b in buffers:
    total += b
return [total.to(buffers[0].dtype, copy=True) for _ in buffers]
