# cell: ring_allreduce_sim
# loses: test_ring_sim_trace
# In the reduce-scatter the chunk index is r - step without "% n" (tensor_split's tuple accepts -1, -2, ...), so the
# arithmetic is right but the trace records negative chunk numbers; only the all-gather, where r + 1 - t reached N and
# raised IndexError, got its "% n". Breaks "chunk" as a chunk number 0..N-1 in the trace (a replay that indexes
# Python sequences with it still works).
n = len(buffers)
copies = [b.clone() for b in buffers]
chunks = [torch.tensor_split(c, n) for c in copies]
trace = []
for step in range(n - 1):
    sends = [(r, r - step) for r in range(n)]
    payloads = [chunks[r][c].clone() for r, c in sends]
    for (r, c), payload in zip(sends, payloads):
        chunks[(r + 1) % n][c].add_(payload)
        trace.append((step, r, (r + 1) % n, c))
for t in range(n - 1):
    step = n - 1 + t
    sends = [(r, (r + 1 - t) % n) for r in range(n)]
    payloads = [chunks[r][c].clone() for r, c in sends]
    for (r, c), payload in zip(sends, payloads):
        chunks[(r + 1) % n][c].copy_(payload)
        trace.append((step, r, (r + 1) % n, c))
return copies, trace
