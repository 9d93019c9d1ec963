# cell: allreduce_
# loses: test_allreduce
# Packs all tensors into one flat buffer with torch.cat and sums over a new leading axis. torch.cat
# refuses 0-d tensors ("zero-dimensional tensor cannot be concatenated"), so a scalar gradient
# (a 0-d tensor) raises. Breaks "any shape, a 0-d tensor included".
if not tensors:
    raise ValueError("allreduce_ needs at least one tensor")
home = tensors[0].device
flat = torch.cat([t.to(home) for t in tensors])
total = flat.view(len(tensors), *tensors[0].shape).sum(0)
for t in tensors:
    t.copy_(total)
