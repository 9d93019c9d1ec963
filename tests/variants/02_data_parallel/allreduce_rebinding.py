# cell: allreduce_
# loses: test_allreduce test_train_batch
if len(tensors) == 0:
    raise ValueError("tensors is empty")
total = tensors[0].clone()
for t in tensors[1:]:
    total += t.to(total.device)
for i in range(len(tensors)):
    tensors[i] = total.to(tensors[i].device).clone()
