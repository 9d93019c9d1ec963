# cell: ring_allreduce_sim
# loses: test_ring_sim_result test_ring_sim_trace
n = len(buffers)
work = [b.clone() for b in buffers]
chunks = [torch.tensor_split(w, n) for w in work]
trace = []
for s in range(n - 1):  # reduce-scatter only: each worker ends with one complete chunk
    sent = [chunks[r][(r - s) % n].clone() for r in range(n)]
    for r in range(n):
        c, dst = (r - s) % n, (r + 1) % n
        chunks[dst][c].add_(sent[r])
        trace.append((s, r, dst, c))
return work, trace
