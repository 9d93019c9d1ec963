# cell: allreduce_
# loses: test_allreduce
# Adds up on the CPU whatever the devices: right on CPUs and GPUs (through the host), but it
# breaks the contract's "a device the list itself uses": a list on the meta device fails.
if len(tensors) == 0:
    raise ValueError("tensors is empty; pass one tensor per device")
total = sum(t.detach().cpu() for t in tensors)
for t in tensors:
    t.copy_(total.to(t.device))
