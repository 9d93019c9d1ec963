# cell: ring_allreduce_sim
# loses: test_ring_sim_trace
# wrong: "one tuple (step, src, dst, chunk) per transfer, including transfers of empty chunks (the schedule does not depend on the data)": transfers of empty chunks are left out of the trace, so buffers shorter than N give a short trace; right when the length is at least N
n = len(buffers)
if n == 0:
    raise ValueError("buffers must hold one tensor per worker; got an empty list")
work = [b.clone() for b in buffers]
chunks = [torch.tensor_split(w, n) for w in work]
trace = []
for s in range(n - 1):
    sent = [chunks[r][(r - s) % n].clone() for r in range(n)]
    for r in range(n):
        c, dst = (r - s) % n, (r + 1) % n
        if sent[r].numel() == 0:
            continue  # nothing to send
        chunks[dst][c].add_(sent[r])
        trace.append((s, r, dst, c))
for s in range(n - 1):
    sent = [chunks[r][(r + 1 - s) % n].clone() for r in range(n)]
    for r in range(n):
        c, dst = (r + 1 - s) % n, (r + 1) % n
        if sent[r].numel() == 0:
            continue
        chunks[dst][c].copy_(sent[r])
        trace.append((n - 1 + s, r, dst, c))
return work, trace
