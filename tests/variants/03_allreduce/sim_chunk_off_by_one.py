# cell: ring_allreduce_sim
# loses: test_ring_sim_result
n = len(buffers)
work = [b.clone() for b in buffers]
chunks = [torch.tensor_split(w, n) for w in work]
trace = []
for s in range(n - 1):
    sent = [chunks[r][(r - s) % n].clone() for r in range(n)]
    for r in range(n):
        c, dst = (r - s) % n, (r + 1) % n
        chunks[dst][c].add_(sent[r])
        trace.append((s, r, dst, c))
for s in range(n - 1):  # all-gather starts one chunk too early: (r - s), not (r + 1 - s)
    sent = [chunks[r][(r - s) % n].clone() for r in range(n)]
    for r in range(n):
        c, dst = (r - s) % n, (r + 1) % n
        chunks[dst][c].copy_(sent[r])
        trace.append((n - 1 + s, r, dst, c))
return work, trace
