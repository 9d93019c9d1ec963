# cell: ring_allreduce_sim
# scores: full
# Another valid schedule: worker r sends chunk (r + 1 - step) in the reduce-scatter, so worker r ends it holding
# chunk (r + 2) complete, and forwards chunk (r + 2 - k) in all-gather step k. All sends of a step are taken
# (snapshotted) before any is applied; the trace records exactly that.
n = len(buffers)
work = [torch.empty_like(b).copy_(b) for b in buffers]
views = [torch.tensor_split(w, n) for w in work]
trace = []
for step in range(2 * (n - 1)):
    reducing = step < n - 1
    k = step if reducing else step - (n - 1)
    first = 1 if reducing else 2
    sends = {}
    for src in range(n):
        c = (src + first - k) % n
        sends[src] = (c, views[src][c].clone())
    for src in range(n):
        c, payload = sends[src]
        dst = (src + 1) % n
        if reducing:
            views[dst][c].add_(payload)
        else:
            views[dst][c].copy_(payload)
        trace.append((step, src, dst, c))
return work, trace
