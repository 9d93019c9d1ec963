# cell: ring_allreduce_sim
# loses: test_ring_sim_result
# Runs a correct ring and trace, then, since every worker ends equal, returns worker 0's copy N times: the N
# returned "copies" are one tensor (writing worker 1's buffer changes every worker's).
# Breaks: "Return the N copies" (each worker its own copy).
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
        trace.append((n - 1 + s, r, dst, c))
return [copies[0]] * n, trace
