# cell: allreduce_
# loses: test_allreduce test_train_batch
# Accumulates in torch.zeros(shape): float32 by default, so float64 gradients lose their low
# bits and int64 counts beyond 2**24 are rounded, before the sum is copied back.
if len(tensors) == 0:
    raise ValueError("tensors is empty; pass one tensor per device")
total = torch.zeros(tensors[0].shape, device=tensors[0].device)
for t in tensors:
    total += t.to(total.device)
for t in tensors:
    t.copy_(total.to(t.device))
