# cell: train_batch
# loses: test_train_batch
# p.data = p.data - ... gives every parameter new memory: the values are right, the memory each
# parameter was given keeps the old ones (a blind review's answer)
shards = split_batch(X, y, len(replicas))
total = 0.0
for params, (X_i, y_i) in zip(replicas, shards):
    for p in params:
        p.grad = None
    device = params[0].device
    loss = loss_fn(params, X_i.to(device), y_i.to(device))
    loss.backward()
    total += loss.item()
for j in range(len(replicas[0])):
    allreduce_([params[j].grad for params in replicas])
for params in replicas:
    for p in params:
        p.data = p.data - lr * p.grad / len(X)
return total / len(X)
