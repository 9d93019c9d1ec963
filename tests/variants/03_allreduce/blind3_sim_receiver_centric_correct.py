# cell: ring_allreduce_sim
# scores: full
# Correct, another style: snapshot every worker's outgoing chunk in a dict first, then apply per receiver, visiting
# receivers in descending order (so the trace lists a step's transfers from the last worker down); plain int tuples,
# torch.clone copies, empty chunks recorded like any other.
n = len(buffers)
own = [torch.clone(b) for b in buffers]
parts = [torch.tensor_split(w, n) for w in own]
trace = []
for step in range(2 * (n - 1)):
    reducing = step < n - 1
    in_flight = {}
    for src in range(n):
        c = (src - step) % n
        in_flight[src] = (c, parts[src][c].clone())
    for dst in reversed(range(n)):
        src = (dst - 1) % n
        c, payload = in_flight[src]
        if reducing:
            parts[dst][c].add_(payload)
        else:
            parts[dst][c].copy_(payload)
        trace.append((step, src, dst, c))
return own, trace
