# cell: ring_allreduce_sim
# loses: test_ring_sim_result
# Short-cuts N=1 by returning the input buffer itself ("nothing to send, nothing to do") instead of a copy;
# N > 1 is right.
# Breaks: "For N=1 ... return a copy and an empty trace" (the caller's buffer is aliased by the result).
n = len(buffers)
if n == 1:
    return list(buffers), []
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
return copies, trace
