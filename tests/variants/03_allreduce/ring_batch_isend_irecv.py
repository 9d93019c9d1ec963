# cell: ring_allreduce_
# scores: full
# alone: graded after other units in one kernel, its first step's batch sent about 8 KB more than the ring's bytes (seen once; cause not found), over the byte bound
# The ring with dist.batch_isend_irecv (PyTorch's paired form, the one NCCL needs), one batch per step.
rank, n = dist.get_rank(), dist.get_world_size()
work = tensor.contiguous()
chunks = torch.tensor_split(work.view(-1), n)
right, left = (rank + 1) % n, (rank - 1) % n
for s in range(2 * (n - 1)):
    if s < n - 1:  # reduce-scatter: receive into a fresh buffer, then add
        outgoing, target = chunks[(rank - s) % n], chunks[(rank - s - 1) % n]
        incoming = torch.empty_like(target)
    else:  # all-gather: receive straight into place
        g = s - (n - 1)
        outgoing, target = chunks[(rank + 1 - g) % n], chunks[(rank - g) % n]
        incoming = target
    ops = []
    if outgoing.numel():
        ops.append(dist.P2POp(dist.isend, outgoing, right))
    if incoming.numel():
        ops.append(dist.P2POp(dist.irecv, incoming, left))
    for request in dist.batch_isend_irecv(ops) if ops else []:
        request.wait()
    if s < n - 1:
        target.add_(incoming)
tensor.copy_(work)
return tensor
