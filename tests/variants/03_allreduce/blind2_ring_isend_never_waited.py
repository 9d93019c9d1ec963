# cell: ring_allreduce_
# loses: test_ring_allreduce_
# Keeps each step's isend request in one variable and never calls .wait(): the next step's isend rebinds it and the
# function returns with the last request unwaited. Meant as the "missing wait" the contract says a test cannot see,
# but on gloo (checked here on 2 and 3 local processes) a Work dropped before its send completed loses that send:
# the neighbour's recv never completes and the ring hangs (the test should fail by its timeout, not by a wrong sum).
# Breaks: "A buffer is not touched while its send is in flight ... call its .wait() ... before you return".
rank, n = dist.get_rank(), dist.get_world_size()
flat = tensor.flatten()
if n > 1 and flat.numel() > 0:
    right, left = (rank + 1) % n, (rank - 1) % n
    chunks = torch.tensor_split(flat, n)
    req = None
    for s in range(n - 1):
        recv_c = chunks[(rank - s - 1) % n]
        incoming = torch.empty_like(recv_c)
        req = dist.isend(chunks[(rank - s) % n], right)
        dist.recv(incoming, left)
        recv_c.add_(incoming)
    for s in range(n - 1):
        req = dist.isend(chunks[(rank + 1 - s) % n], right)
        dist.recv(chunks[(rank - s) % n], left)
if flat.data_ptr() != tensor.data_ptr() or not tensor.is_contiguous():
    tensor.copy_(flat.view(tensor.shape))
return tensor
