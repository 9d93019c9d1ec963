# cell: ring_allreduce_sim
# loses: test_ring_sim_trace
# Correct buffers, but the trace numbers the all-gather's steps from 0 again (each phase's own loop counter).
# Breaks: "steps N-1 .. 2N-3 the all-gather" / 2(N-1) steps numbered from 0 (the trace is not what the code did).
n = len(buffers)
copies = [b.clone() for b in buffers]
chunks = [torch.tensor_split(c, n) for c in copies]
trace = []
for s in range(n - 1):
    outgoing = [(r, (r - s) % n, chunks[r][(r - s) % n].clone()) for r in range(n)]
    for r, c, data in outgoing:
        dst = (r + 1) % n
        chunks[dst][c].add_(data)
        trace.append((s, r, dst, c))
for s in range(n - 1):
    outgoing = [(r, (r + 1 - s) % n, chunks[r][(r + 1 - s) % n].clone()) for r in range(n)]
    for r, c, data in outgoing:
        dst = (r + 1) % n
        chunks[dst][c].copy_(data)
        trace.append((s, r, dst, c))
return copies, trace
