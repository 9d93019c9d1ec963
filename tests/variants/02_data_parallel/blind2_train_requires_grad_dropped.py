# cell: train_batch
# loses: test_train_batch
# wrong: avoids torch.no_grad by switching requires_grad off for the update and never back on:
# values right, but the parameters stop being "leaves that require grad" (and a second call fails).
total = 0.0
for params, (X_i, y_i) in zip(replicas, split_batch(X, y, len(replicas))):
    device = params[0].device
    for p in params:
        p.grad = None
    loss = loss_fn(params, X_i.to(device), y_i.to(device))
    loss.backward()
    total += loss.item()
for j in range(len(replicas[0])):
    allreduce_([params[j].grad for params in replicas])
for params in replicas:
    for p in params:
        p.requires_grad_(False)
        p -= lr * p.grad / len(X)
return total / len(X)
