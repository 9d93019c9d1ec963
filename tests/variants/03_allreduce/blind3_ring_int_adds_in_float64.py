# cell: ring_allreduce_
# loses: test_ring_allreduce_
# The reduce-scatter adds in float64 "so nothing is lost to rounding" and copies the result back into the chunk.
# Exact for floats up to rounding and for int32, but int64 values beyond 2**53 are rounded on every add.
# Breaks "Integer tensors must come out exact" (only seen with large int64 values).
rank, n = dist.get_rank(), dist.get_world_size()
if n == 1 or tensor.numel() == 0:
    return tensor
work = tensor if tensor.is_contiguous() else tensor.contiguous()
chunks = torch.tensor_split(work.view(-1), n)
right, left = (rank + 1) % n, (rank - 1) % n
for step in range(2 * (n - 1)):
    out_chunk = chunks[(rank - step) % n]
    in_chunk = chunks[(rank - 1 - step) % n]
    incoming = torch.empty_like(in_chunk)
    ops = []
    if out_chunk.numel():
        ops.append(dist.P2POp(dist.isend, out_chunk, right))
    if incoming.numel():
        ops.append(dist.P2POp(dist.irecv, incoming, left))
    if ops:
        for request in dist.batch_isend_irecv(ops):
            request.wait()
    if step < n - 1:
        in_chunk.copy_(in_chunk.to(torch.float64) + incoming.to(torch.float64))
    else:
        in_chunk.copy_(incoming)
if work is not tensor:
    tensor.copy_(work)
return tensor
