# cell: train_batch
# loses: test_train_batch
# Right values, but each replica's list gets new tensors instead of updating its own.
total_loss = 0.0
for params, (X_i, y_i) in zip(replicas, split_batch(X, y, len(replicas))):
    device = params[0].device
    loss = loss_fn(params, X_i.to(device), y_i.to(device))
    loss.backward()
    total_loss += loss.item()
for j in range(len(replicas[0])):
    allreduce_([params[j].grad for params in replicas])
with torch.no_grad():
    for params in replicas:
        for j, p in enumerate(params):
            params[j] = (p - lr * p.grad / len(X)).requires_grad_(True)
return total_loss / len(X)
