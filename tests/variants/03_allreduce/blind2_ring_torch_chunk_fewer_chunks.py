# cell: ring_allreduce_
# loses: test_ring_allreduce_
# Splits with torch.chunk instead of torch.tensor_split. Same N chunks for every visible shape (10, 40000, 7, 30,
# 11, 12 elements), but torch.chunk returns FEWER than N chunks when ceil(numel/N) * (N-1) >= numel (5 elements on
# 4 ranks: 2, 2, 1; 2 elements on 3 ranks: 1, 1) and the schedule indexes a chunk that does not exist: IndexError on
# some ranks, the others hang in recv.
# Breaks: "Any shape": every rank gets the sum, for any numel (small tensors on more ranks crash).
rank, n = dist.get_rank(), dist.get_world_size()
flat = tensor.flatten()
if n > 1 and flat.numel() > 0:
    right, left = (rank + 1) % n, (rank - 1) % n
    chunks = torch.chunk(flat, n)
    for s in range(n - 1):
        send_c, recv_c = chunks[(rank - s) % n], chunks[(rank - s - 1) % n]
        incoming = torch.empty_like(recv_c)
        req = dist.isend(send_c, right)
        dist.recv(incoming, left)
        req.wait()
        recv_c.add_(incoming)
    for s in range(n - 1):
        send_c, recv_c = chunks[(rank + 1 - s) % n], chunks[(rank - s) % n]
        req = dist.isend(send_c, right)
        dist.recv(recv_c, left)
        req.wait()
if flat.data_ptr() != tensor.data_ptr() or not tensor.is_contiguous():
    tensor.copy_(flat.view(tensor.shape))
return tensor
