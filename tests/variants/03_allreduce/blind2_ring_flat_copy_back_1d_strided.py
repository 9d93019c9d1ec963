# cell: ring_allreduce_
# loses: test_ring_allreduce_
# Works on tensor.flatten(), taken for "a view of a contiguous tensor, a copy of a non-contiguous one", and copies
# back at the end. But flatten() of a 1-D tensor returns that tensor itself, strided or not: on a 1-D strided view
# (t[::2]) the chunks are not contiguous, and gloo refuses to send them ("input tensor has to be contiguous").
rank, n = dist.get_rank(), dist.get_world_size()
work = tensor.flatten()
if n > 1 and work.numel() > 0:
    right, left = (rank + 1) % n, (rank - 1) % n
    parts = torch.tensor_split(work, n)
    scratch = torch.empty_like(parts[0])
    for step in range(n - 1):  # reduce-scatter: rank r ends holding part (r + 1) complete
        out_part, in_part = parts[(rank - step) % n], parts[(rank - step - 1) % n]
        incoming = scratch[:in_part.numel()]
        requests = [dist.isend(out_part, right), dist.irecv(incoming, left)]
        for request in requests:
            request.wait()
        in_part.add_(incoming)
    for step in range(n - 1):  # all-gather: forward complete parts, the receiver overwrites
        out_part, in_part = parts[(rank + 1 - step) % n], parts[(rank - step) % n]
        requests = [dist.isend(out_part, right), dist.irecv(in_part, left)]
        for request in requests:
            request.wait()
if work.data_ptr() != tensor.data_ptr() or not tensor.is_contiguous():
    tensor.copy_(work.view(tensor.shape))
return tensor
