# cell: ring_allreduce_
# scores: full
# Correct, another style: pad a flat copy to N equal blocks of ceil(numel / N) elements (zeros, exact for ints),
# run the ring on the rows of an (N, size) view with the gloo rule (isend, then blocking recv, then wait), and copy
# the first numel elements back into the caller's tensor (any shape or strides). Each rank sends 2(N-1) blocks of
# ceil(numel / N) elements: within the ring's share.
rank, n = dist.get_rank(), dist.get_world_size()
numel = tensor.numel()
if n == 1 or numel == 0:
    return tensor
size = -(-numel // n)
padded = torch.zeros(n * size, dtype=tensor.dtype, device=tensor.device)
padded[:numel] = tensor.reshape(-1)
blocks = padded.view(n, size)
incoming = torch.empty(size, dtype=tensor.dtype, device=tensor.device)
right, left = (rank + 1) % n, (rank - 1) % n
for step in range(2 * (n - 1)):
    send_block = blocks[(rank - step) % n]
    recv_block = blocks[(rank - 1 - step) % n]
    request = dist.isend(send_block, right)
    dist.recv(incoming, left)
    request.wait()
    if step < n - 1:
        recv_block += incoming
    else:
        recv_block.copy_(incoming)
tensor.copy_(padded[:numel].view(tensor.shape))
return tensor
