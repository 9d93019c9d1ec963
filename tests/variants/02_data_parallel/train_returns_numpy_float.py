# cell: train_batch
# loses: test_train_batch
# Adds the shard losses up with numpy: the mean loss comes back as a numpy.float64, which
# passes isinstance(loss, float) but is not the Python float the contract asks for.
shard_losses = []
for params, (X_i, y_i) in zip(replicas, split_batch(X, y, len(replicas))):
    device = params[0].device
    loss = loss_fn(params, X_i.to(device), y_i.to(device))
    loss.backward()
    shard_losses.append(loss.item())
for j in range(len(replicas[0])):
    allreduce_([params[j].grad for params in replicas])
with torch.no_grad():
    for params in replicas:
        for p in params:
            p -= lr * p.grad / len(X)
            p.grad = None
return np.sum(shard_losses) / len(X)
