# cell: train_batch
# scores: full
# correct, functional gradients: torch.autograd.grad per replica (no .grad accumulates, so nothing
# to clear between calls), allreduce_ on those gradient tensors, in-place update under no_grad.
grads, total = [], 0.0
for params, (X_i, y_i) in zip(replicas, split_batch(X, y, len(replicas))):
    device = params[0].device
    loss = loss_fn(params, X_i.to(device), y_i.to(device))
    grads.append(list(torch.autograd.grad(loss, params)))
    total += loss.item()
for j in range(len(replicas[0])):
    allreduce_([g[j] for g in grads])
with torch.no_grad():
    for params, g in zip(replicas, grads):
        for p, g_p in zip(params, g):
            p -= lr * g_p / len(X)
return total / len(X)
