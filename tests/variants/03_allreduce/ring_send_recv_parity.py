# cell: ring_allreduce_
# scores: full
# The ring with blocking send/recv only: even ranks send first, odd ranks receive first, so no rank waits on itself.
rank, n = dist.get_rank(), dist.get_world_size()
if n == 1 or tensor.numel() == 0:
    return tensor
work = tensor.contiguous().clone()
chunks = list(torch.tensor_split(work.view(-1), n))
right, left = (rank + 1) % n, (rank - 1) % n


def step(outgoing, incoming):
    if rank % 2 == 0:
        dist.send(outgoing, right)
        dist.recv(incoming, left)
    else:
        dist.recv(incoming, left)
        dist.send(outgoing, right)


for s in range(n - 1):
    target = chunks[(rank - s - 1) % n]
    incoming = torch.empty_like(target)
    step(chunks[(rank - s) % n], incoming)
    target += incoming
for s in range(n - 1):
    step(chunks[(rank + 1 - s) % n], chunks[(rank - s) % n])
tensor.copy_(work.view_as(tensor))
return tensor
