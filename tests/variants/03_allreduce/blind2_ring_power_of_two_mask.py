# cell: ring_allreduce_
# loses: test_ring_allreduce_
# Chunk indices wrapped with "& (n - 1)" instead of "% n" (a bit trick that is a modulo only for powers of two):
# right on 2 and 4 ranks, the only sizes the visible cases use; on 3 ranks chunk 1 is never reduced or forwarded,
# and a rank receives into a chunk of another size than its neighbour sends (gloo aborts on the size mismatch).
# Breaks: every rank gets the sum, for any N.
rank, n = dist.get_rank(), dist.get_world_size()
flat = tensor.flatten()
if n > 1 and flat.numel() > 0:
    right, left = (rank + 1) % n, (rank - 1) % n
    mask = n - 1
    chunks = torch.tensor_split(flat, n)
    for s in range(n - 1):
        send_c, recv_c = chunks[(rank - s) & mask], chunks[(rank - s - 1) & mask]
        incoming = torch.empty_like(recv_c)
        req = dist.isend(send_c, right)
        dist.recv(incoming, left)
        req.wait()
        recv_c.add_(incoming)
    for s in range(n - 1):
        send_c, recv_c = chunks[(rank + 1 - s) & mask], chunks[(rank - s) & mask]
        req = dist.isend(send_c, right)
        dist.recv(recv_c, left)
        req.wait()
if flat.data_ptr() != tensor.data_ptr() or not tensor.is_contiguous():
    tensor.copy_(flat.view(tensor.shape))
return tensor
