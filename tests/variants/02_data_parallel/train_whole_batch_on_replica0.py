# cell: train_batch
# loses: test_train_batch
# Same numbers as SGD, but not data parallel: replica 0 computes the whole batch and
# hands its gradients to the others, which never compute anything.
params0 = replicas[0]
device = params0[0].device
loss = loss_fn(params0, X.to(device), y.to(device))
loss.backward()
with torch.no_grad():
    for params in replicas[1:]:
        for p, p0 in zip(params, params0):
            p.grad = p0.grad.to(p.device).clone()
    for params in replicas:
        for p in params:
            p -= lr * p.grad / len(X)
            p.grad = None
return loss.item() / len(X)
