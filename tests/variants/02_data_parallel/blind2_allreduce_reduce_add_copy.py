# cell: allreduce_
# scores: full
# Correct, functional style: fold torch.add over the tensors moved to the first tensor's device
# (a device the list uses; the result keeps the dtype, integers and bool included), then copy_
# the sum into every tensor, which writes into its own memory across devices.
import functools
if len(tensors) == 0:
    raise ValueError("allreduce_ of an empty list")
home = tensors[0].device
total = functools.reduce(torch.add, [t.to(home) for t in tensors])
for t in tensors:
    t.copy_(total)
