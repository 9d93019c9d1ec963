# cell: ring_allreduce_sim
# loses: test_ring_sim_result test_ring_sim_trace
# The right schedule, run on float64 copies and cast back at the end: integers beyond 2**53 come back rounded.
n = len(buffers)
work = [b.to(torch.float64) for b in buffers]
chunks = [torch.tensor_split(w, n) for w in work]
trace = []
for s in range(n - 1):
    sent = [chunks[r][(r - s) % n].clone() for r in range(n)]
    for r in range(n):
        c, dst = (r - s) % n, (r + 1) % n
        chunks[dst][c].add_(sent[r])
        trace.append((s, r, dst, c))
for s in range(n - 1):
    sent = [chunks[r][(r + 1 - s) % n].clone() for r in range(n)]
    for r in range(n):
        c, dst = (r + 1 - s) % n, (r + 1) % n
        chunks[dst][c].copy_(sent[r])
        trace.append((n - 1 + s, r, dst, c))
return [w.to(buffers[0].dtype) for w in work], trace
