# cell: allreduce_
# scores: full
# A running sum passed along the list (each tensor adds the one before it), then the last,
# which holds the total, copied back into all the others.
if not tensors:
    raise ValueError("tensors is empty")
for before, t in zip(tensors, tensors[1:]):
    t.add_(before.to(t.device))
for t in tensors[:-1]:
    t.copy_(tensors[-1].to(t.device))
