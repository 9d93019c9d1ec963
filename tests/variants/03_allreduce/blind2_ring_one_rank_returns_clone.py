# cell: ring_allreduce_
# loses: test_ring_allreduce_
# With one rank "the sum is just a copy": returns tensor.clone(), a new tensor, instead of the argument.
# Right for every N > 1.
# Breaks: "returns tensor" (the in-place function returns its argument), N = 1 only.
rank, n = dist.get_rank(), dist.get_world_size()
if n == 1:
    return tensor.clone()
flat = tensor.flatten()
if flat.numel() > 0:
    right, left = (rank + 1) % n, (rank - 1) % n
    chunks = torch.tensor_split(flat, n)
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
