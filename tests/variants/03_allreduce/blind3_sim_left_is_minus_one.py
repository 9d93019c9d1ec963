# cell: ring_allreduce_sim
# loses: test_ring_sim_trace
# Receiver-centric loop that takes the left neighbour as r - 1 and lets Python's negative indexing wrap it: the
# data moves correctly (outgoing[-1] is worker N-1's chunk), but the trace records worker 0's transfers as coming
# from src -1. Breaks "(step, src, dst, chunk)" with src a worker number 0..N-1; a check that only tests
# dst == (src + 1) % N still passes.
n = len(buffers)
copies = [b.clone() for b in buffers]
chunks = [torch.tensor_split(c, n) for c in copies]
trace = []
for step in range(2 * (n - 1)):
    outgoing = [chunks[r][(r - step) % n].clone() for r in range(n)]  # all sends taken first
    for r in range(n):
        left = r - 1
        c = (left - step) % n
        if step < n - 1:
            chunks[r][c].add_(outgoing[left])
        else:
            chunks[r][c].copy_(outgoing[left])
        trace.append((step, left, r, c))
return copies, trace
