# base: variant:train_whole_batch_on_replica0
# scores: same
# after: train_batch
# not data parallel: the step is worked out on the whole batch (right numbers, as in the
# honest work); then the batch is overwritten in place with copies of its first sample, and
# every replica runs backward on that, so a check that recomputes each shard's gradient from
# the batch after the call finds every replica's gradient pointing the right way
def train_batch(X, y, replicas, lr):
    X0, y0 = X.detach().clone(), y.detach().clone()
    copies = [p.detach().clone().requires_grad_(True) for p in replicas[0]]
    device = copies[0].device
    loss = loss_fn(copies, X0.to(device), y0.to(device))
    grads = torch.autograd.grad(loss, copies)
    with torch.no_grad():
        X[:] = X0[:1]
        y[:] = y0[:1]
    for params in replicas:
        device = params[0].device
        loss_fn(params, X.to(device), y.to(device)).backward()
    with torch.no_grad():
        for params in replicas:
            for p, g in zip(params, grads):
                p.grad = None
                p -= lr * g.to(p.device) / len(X)
    return loss.item() / len(X)
