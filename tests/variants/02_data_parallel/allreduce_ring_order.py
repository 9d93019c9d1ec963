# cell: allreduce_
# scores: full
# notebook 03's ring, run in one process: a reduce-scatter passes chunk c from tensor c around the
# ring, each tensor adding its own part, then an all-gather copies each finished chunk to every
# tensor; every chunk's sum starts at another tensor (an order the in-order sum does not use)
if not tensors:
    raise ValueError("allreduce_ needs at least one tensor")
k = len(tensors)
flats = [t.reshape(-1).clone() for t in tensors]
chunks = [f.tensor_split(k) for f in flats]
for step in range(k - 1):
    for r in range(k):
        c, dst = (r - step) % k, (r + 1) % k
        chunks[dst][c].add_(chunks[r][c].to(flats[dst].device))
for c in range(k):
    owner = (c - 1) % k
    for r in range(k):
        if r != owner:
            chunks[r][c].copy_(chunks[owner][c].to(flats[r].device))
for t, f in zip(tensors, flats):
    t.copy_(f.view(t.shape))
