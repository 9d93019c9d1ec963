# cell: train_batch
# scores: full
# Gradients zeroed before backward instead of cleared after; each shard's summed loss divided by
# the whole batch size before backward, so the allreduced gradient is already the mean's and the
# update is p - lr * grad (written with sub_ and alpha).
for params in replicas:
    for p in params:
        if p.grad is not None:
            p.grad.zero_()
losses = []
for params, (X_i, y_i) in zip(replicas, split_batch(X, y, len(replicas))):
    loss = loss_fn(params, X_i, y_i) / len(X)
    loss.backward()
    losses.append(loss.item())
for j in range(len(replicas[0])):
    allreduce_([params[j].grad for params in replicas])
with torch.no_grad():
    for params in replicas:
        for p in params:
            p.sub_(p.grad, alpha=lr)
return float(sum(losses))
