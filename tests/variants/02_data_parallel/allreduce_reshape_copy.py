# cell: allreduce_
# loses: test_allreduce
# wrong: "holds the sum in its own memory, where every view of it sees it": works on t.reshape(-1), which is a view only for contiguous tensors; a transposed or strided tensor gets a copy, the sum goes into the copy and the tensor in the list keeps its old values
if len(tensors) == 0:
    raise ValueError("tensors is empty; pass one tensor per device")
flats = [t.reshape(-1) for t in tensors]  # 0-d tensors and matrices alike become 1-D
total = flats[0].clone()
for f in flats[1:]:
    total += f.to(total.device)
for f in flats:
    f.copy_(total.to(f.device))
