# cell: ring_allreduce_
# loses: test_ring_allreduce_
rank, n = dist.get_rank(), dist.get_world_size()
flat = tensor.reshape(-1)  # a copy when tensor is not contiguous: the caller's tensor never sees the sum
if n == 1 or flat.numel() == 0:
    return tensor
chunks = torch.tensor_split(flat, n)
right, left = (rank + 1) % n, (rank - 1) % n
scratch = torch.empty_like(chunks[0])
for s in range(n - 1):
    into = chunks[(rank - s - 1) % n]
    request = dist.isend(chunks[(rank - s) % n], right)
    dist.recv(scratch[: into.numel()], left)
    request.wait()
    into.add_(scratch[: into.numel()])
for s in range(n - 1):
    request = dist.isend(chunks[(rank + 1 - s) % n], right)
    dist.recv(chunks[(rank - s) % n], left)
    request.wait()
return tensor
