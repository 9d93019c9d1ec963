# cell: ring_allreduce_
# loses: test_ring_allreduce_
# Half-precision tensors are summed in a float32 copy "to be safe": the sums are right, but every chunk on the wire is
# twice as large as it needs to be.
rank, n = dist.get_rank(), dist.get_world_size()
half = tensor.dtype in (torch.float16, torch.bfloat16)
work = tensor.float() if half else (tensor if tensor.is_contiguous() else tensor.contiguous())
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
if work is not tensor:
    tensor.copy_(work)
return tensor
