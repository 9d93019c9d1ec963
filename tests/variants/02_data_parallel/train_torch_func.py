# cell: train_batch
# scores: full
# Per-shard gradients with torch.func.grad_and_value (no .grad, no hooks), summed by allreduce_
# on those gradient tensors, then the same update on every replica.
from torch.func import grad_and_value

shard_grads, total_loss = [], 0.0
for params, (X_i, y_i) in zip(replicas, split_batch(X, y, len(replicas))):
    device = params[0].device
    grads, loss = grad_and_value(lambda ps: loss_fn(ps, X_i.to(device), y_i.to(device)))(
        [p.detach() for p in params])
    shard_grads.append(grads)
    total_loss += loss.item()
for j in range(len(replicas[0])):
    allreduce_([grads[j] for grads in shard_grads])
with torch.no_grad():
    for params, grads in zip(replicas, shard_grads):
        for p, g in zip(params, grads):
            p.sub_(lr * g / len(X))
return total_loss / len(X)
