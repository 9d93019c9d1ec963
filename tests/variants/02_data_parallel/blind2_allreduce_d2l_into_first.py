# cell: allreduce_
# scores: full
# correct, d2l's mx_allreduce order: accumulate into tensors[0] on its own device, then write it back
# into every other tensor with t[...] = ... (works for 0-d, views, integers and meta).
if len(tensors) == 0:
    raise ValueError("allreduce_ got an empty list")
with torch.no_grad():
    for i in range(1, len(tensors)):
        tensors[0][...] += tensors[i].to(tensors[0].device)
    for i in range(1, len(tensors)):
        tensors[i][...] = tensors[0].to(tensors[i].device)
