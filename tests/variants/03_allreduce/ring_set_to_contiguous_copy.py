# cell: ring_allreduce_
# loses: test_ring_allreduce_
# The ring runs on a contiguous copy, which then replaces the argument's memory (tensor.set_(work)): the caller's
# tensor object reads the sum, but the tensor it is a view of (m when the argument is m.t()) never sees it.
rank, n = dist.get_rank(), dist.get_world_size()
work = tensor.contiguous()
flat = work.view(-1)
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
tensor.set_(work)
return tensor
