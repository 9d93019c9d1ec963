# cell: ring_allreduce_sim
# scores: full
# Another valid ring: worker r completes chunk r (not r + 1); the steps are one loop, the phase picks add or copy.
n = len(buffers)
work = [b.clone() for b in buffers]
chunks = [torch.tensor_split(w, n) for w in work]
trace = []
for step in range(2 * (n - 1)):
    reducing = step < n - 1
    k = step if reducing else step - (n - 1)
    picks = [(r - 1 - k) % n if reducing else (r - k) % n for r in range(n)]
    outgoing = [chunks[r][picks[r]].clone() for r in range(n)]
    for r in range(n):
        target = chunks[(r + 1) % n][picks[r]]
        if reducing:
            target += outgoing[r]
        else:
            target[:] = outgoing[r]
        trace.append((step, r, (r + 1) % n, picks[r]))
return work, trace
