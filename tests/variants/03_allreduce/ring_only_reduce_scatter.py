# cell: ring_allreduce_
# loses: test_ring_allreduce_
rank, n = dist.get_rank(), dist.get_world_size()
flat = tensor.view(-1)
if n == 1 or flat.numel() == 0:
    return tensor
chunks = torch.tensor_split(flat, n)
right, left = (rank + 1) % n, (rank - 1) % n
for s in range(n - 1):  # reduce-scatter only: no all-gather afterwards
    send, into = chunks[(rank - s) % n], chunks[(rank - s - 1) % n]
    buf = torch.empty_like(into)
    request = dist.isend(send, right) if send.numel() else None
    if into.numel():
        dist.recv(buf, left)
    if request is not None:
        request.wait()
    into.add_(buf)
return tensor
