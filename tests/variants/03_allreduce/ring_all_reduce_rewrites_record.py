# cell: ring_allreduce_
# loses: test_ring_allreduce_
# The attack of issue 21 on this exercise: the library's allreduce, then every byte/peer record found in the calling
# frames rewritten to look like a ring. The bytes are now counted outside the worker processes: nothing here to rewrite.
import inspect
dist.all_reduce(tensor)
rank, n = dist.get_rank(), dist.get_world_size()
share = 2 * (n - 1) * -(-tensor.numel() // n) * tensor.element_size()
for info in inspect.stack():
    for value in list(info.frame.f_locals.values()):
        if isinstance(value, dict) and {"sent", "peers"} <= set(value):
            value.update(peers={(rank + 1) % n, (rank - 1) % n}, called=set(), sent=min(value["sent"], share))
return tensor
