# cell: ring_allreduce_
# loses: test_ring_allreduce_
# Works "in the tensor's own memory, whatever the strides" by viewing it as numel consecutive storage elements
# from its storage offset (as_strided). Right for contiguous tensors and dense permutations such as m.t() (every
# rank has the same layout, and a sum is element-wise), wrong for views with gaps (x[::2], m[:, :3]): it sums and
# overwrites storage elements that are not in the view and leaves some of the view's own elements unsummed.
# Breaks "Any shape and layout: afterwards the caller's own tensor holds the sum".
rank, n = dist.get_rank(), dist.get_world_size()
if n == 1 or tensor.numel() == 0:
    return tensor
flat = tensor.as_strided((tensor.numel(),), (1,), tensor.storage_offset())
chunks = torch.tensor_split(flat, n)
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
return tensor
