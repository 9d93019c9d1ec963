# cell: ring_allreduce_sim
# loses: test_ring_sim_trace
# Correct schedule and buffers, but the trace is frozen into a tuple ("a record should be immutable").
# Breaks the return type "list[tuple[int, int, int, int]]" for the trace (iteration, len and indexing all still work).
n = len(buffers)
copies = [b.clone() for b in buffers]
chunks = [torch.tensor_split(c, n) for c in copies]
trace = []
for step in range(2 * (n - 1)):
    payloads = [chunks[r][(r - step) % n].clone() for r in range(n)]
    for r in range(n):
        c, dst = (r - step) % n, (r + 1) % n
        if step < n - 1:
            chunks[dst][c].add_(payloads[r])
        else:
            chunks[dst][c].copy_(payloads[r])
        trace.append((step, r, dst, c))
return copies, tuple(trace)
