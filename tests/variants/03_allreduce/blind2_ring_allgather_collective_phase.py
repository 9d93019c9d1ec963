# cell: ring_allreduce_
# loses: test_ring_allreduce_
# Hand-written reduce-scatter with isend/recv, then the all-gather phase done by the library's dist.all_gather
# (chunks padded to ceil(numel/N)). Gloo's allgather is itself a ring, sends (N-1) padded chunks per rank, so the
# byte counts fit a ring's share; whether they all go to the right neighbour depends on gloo's direction.
# Breaks: "Ring neighbours only ... No collective".
rank, n = dist.get_rank(), dist.get_world_size()
flat = tensor.flatten()
if n > 1 and flat.numel() > 0:
    right, left = (rank + 1) % n, (rank - 1) % n
    chunks = torch.tensor_split(flat, n)
    for s in range(n - 1):
        send_c, recv_c = chunks[(rank - s) % n], chunks[(rank - s - 1) % n]
        incoming = torch.empty_like(recv_c)
        req = dist.isend(send_c, right)
        dist.recv(incoming, left)
        req.wait()
        recv_c.add_(incoming)
    own = chunks[(rank + 1) % n]
    padded = torch.zeros(chunks[0].numel(), dtype=flat.dtype, device=flat.device)
    padded[:own.numel()] = own
    gathered = [torch.empty_like(padded) for _ in range(n)]
    dist.all_gather(gathered, padded)
    for j in range(n):  # rank j contributed its complete chunk (j + 1) % n
        c = chunks[(j + 1) % n]
        c.copy_(gathered[j][:c.numel()])
if flat.data_ptr() != tensor.data_ptr() or not tensor.is_contiguous():
    tensor.copy_(flat.view(tensor.shape))
return tensor
