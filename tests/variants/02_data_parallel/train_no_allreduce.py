# cell: train_batch
# loses: test_train_batch
total_loss = 0.0
for params, (X_i, y_i) in zip(replicas, split_batch(X, y, len(replicas))):
    loss = loss_fn(params, X_i, y_i)
    loss.backward()
    total_loss += loss.item()
with torch.no_grad():
    for params in replicas:
        for p in params:
            p -= lr * p.grad / len(X)
            p.grad = None
return total_loss / len(X)
