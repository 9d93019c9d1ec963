# cell: ring_allreduce_
# loses: test_ring_allreduce_
# The ring runs on a flat copy, and the argument's .data is rebound to it: the same object afterwards reads the sum
# in its own shape, but its old memory (and the tensor it views) keeps the rank's own values.
rank, n = dist.get_rank(), dist.get_world_size()
flat = tensor.detach().reshape(-1).clone()
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
tensor.data = flat.view(tensor.shape)
return tensor
