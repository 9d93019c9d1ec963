# cell: train_batch
# loses: test_train_batch
shard_losses = []
k = len(replicas)
for params, (X_i, y_i) in zip(replicas, split_batch(X, y, k)):
    loss = loss_fn(params, X_i, y_i) / len(X_i)
    loss.backward()
    shard_losses.append(loss.item())
for j in range(len(replicas[0])):
    allreduce_([params[j].grad for params in replicas])
with torch.no_grad():
    for params in replicas:
        for p in params:
            p -= (lr / k) * p.grad / k
            p.grad = None
return sum(shard_losses) / k
