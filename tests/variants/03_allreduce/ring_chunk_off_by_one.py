# cell: ring_allreduce_
# loses: test_ring_allreduce_
rank, n = dist.get_rank(), dist.get_world_size()
flat = tensor.view(-1)
if n == 1 or flat.numel() == 0:
    return tensor
chunks = torch.tensor_split(flat, n)
right, left = (rank + 1) % n, (rank - 1) % n
scratch = torch.empty_like(chunks[0])

def exchange(send, recv):
    request = dist.isend(send, right) if send.numel() else None
    if recv.numel():
        dist.recv(recv, left)
    if request is not None:
        request.wait()

for s in range(n - 1):
    into = chunks[(rank - s - 1) % n]
    buf = scratch[: into.numel()]
    exchange(chunks[(rank - s) % n], buf)
    into.add_(buf)
for s in range(n - 1):  # all-gather sends chunk (rank - s): one step behind the completed sums
    exchange(chunks[(rank - s) % n], chunks[(rank - s - 1) % n])
return tensor
