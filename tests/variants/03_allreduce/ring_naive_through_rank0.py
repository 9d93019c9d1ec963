# cell: ring_allreduce_
# loses: test_ring_allreduce_
# Correct sums, but every rank talks to rank 0: at N >= 4 some of them are not ring neighbours.
rank, n = dist.get_rank(), dist.get_world_size()
work = tensor if tensor.is_contiguous() else tensor.contiguous()
if n > 1 and work.numel():
    if rank == 0:
        incoming = torch.empty_like(work)
        for src in range(1, n):
            dist.recv(incoming, src)
            work.add_(incoming)
        for dst in range(1, n):
            dist.send(work, dst)
    else:
        dist.send(work, 0)
        dist.recv(work, 0)
if work is not tensor:
    tensor.copy_(work)
return tensor
