# cell: ring_allreduce_
# loses: test_ring_allreduce_
# A correct ring, but turning the other way: every rank sends to its LEFT neighbour and receives from its right.
rank, n = dist.get_rank(), dist.get_world_size()
work = tensor if tensor.is_contiguous() else tensor.contiguous()
flat = work.view(-1)
if n == 1 or flat.numel() == 0:
    return tensor
chunks = torch.tensor_split(flat, n)
to, frm = (rank - 1) % n, (rank + 1) % n
scratch = torch.empty_like(chunks[0])
for s in range(n - 1):
    into = chunks[(rank + s + 1) % n]
    request = dist.isend(chunks[(rank + s) % n], to)
    dist.recv(scratch[: into.numel()], frm)
    request.wait()
    into.add_(scratch[: into.numel()])
for s in range(n - 1):
    request = dist.isend(chunks[(rank - 1 + s) % n], to)
    dist.recv(chunks[(rank + s) % n], frm)
    request.wait()
if work is not tensor:
    tensor.copy_(work)
return tensor
