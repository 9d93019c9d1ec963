# cell: allreduce_
# scores: full
# Sum with torch.stack on the first tensor's device, copy the sum into every tensor.
if not tensors:
    raise ValueError("no tensors to allreduce")
total = torch.stack([t.to(tensors[0].device) for t in tensors]).sum(dim=0)
for t in tensors:
    t.copy_(total)
