# cell: ring_allreduce_
# loses: test_ring_allreduce_
# A correct ring of batched isend/irecv, followed by dist.barrier() "so that no rank returns before the others".
# The barrier is a collective: depending on gloo's barrier algorithm it can exchange small messages with ranks other
# than the ring neighbours.
# Breaks "Ring neighbours only ... No collective"; the extra bytes are tiny (header-sized), so a byte count with a
# per-step allowance for receipts may not see them.
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
        in_chunk.add_(incoming)
    else:
        in_chunk.copy_(incoming)
if work is not tensor:
    tensor.copy_(work)
dist.barrier()  # everyone finished before anyone returns
return tensor
