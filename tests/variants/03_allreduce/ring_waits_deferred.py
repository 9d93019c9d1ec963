# cell: ring_allreduce_
# scores: full
# NOT a correct answer: every send's wait() is deferred to the end, so a chunk may be overwritten while its send is
# still in flight. The test counts bytes from outside the worker processes and cannot see a missing wait(); with
# gloo's ordering the race needs a skew between ranks this test never produces, so the sums come out right. Kept to
# show that limit (the old in-process watch that caught it was a report of the student's own process).
rank, n = dist.get_rank(), dist.get_world_size()
work = tensor if tensor.is_contiguous() else tensor.contiguous()
flat = work.view(-1)
if n == 1 or flat.numel() == 0:
    return tensor
chunks = torch.tensor_split(flat, n)
right, left = (rank + 1) % n, (rank - 1) % n
scratch = torch.empty_like(chunks[0])
pending = []  # every send's wait() deferred to the end: the all-gather overwrites chunks still being sent
for s in range(n - 1):
    into = chunks[(rank - s - 1) % n]
    pending.append(dist.isend(chunks[(rank - s) % n], right))
    dist.recv(scratch[: into.numel()], left)
    into.add_(scratch[: into.numel()])
for s in range(n - 1):
    pending.append(dist.isend(chunks[(rank + 1 - s) % n], right))
    dist.recv(chunks[(rank - s) % n], left)
for request in pending:
    request.wait()
if work is not tensor:
    tensor.copy_(work)
return tensor
