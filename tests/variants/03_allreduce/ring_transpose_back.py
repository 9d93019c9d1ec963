# cell: ring_allreduce_
# loses: test_ring_allreduce_
# Handles only the non-contiguous layout of the notebook's example, a transposed 2-D view: .t() gives back the
# contiguous tensor it views, so the ring sums into that memory. A strided slice (x[::2]) makes reshape copy, so the
# sum never reaches the caller; a permuted 3-D view makes .t() raise.
rank, n = dist.get_rank(), dist.get_world_size()
flat = tensor.view(-1) if tensor.is_contiguous() else tensor.t().reshape(-1)
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
