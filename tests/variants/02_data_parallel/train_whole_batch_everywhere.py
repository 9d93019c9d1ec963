# cell: train_batch
# loses: test_train_batch
# Every replica runs forward and backward on the whole batch, so no allreduce is needed: the
# same numbers as SGD, but n times the work and no data parallelism.
for params in replicas:
    device = params[0].device
    loss = loss_fn(params, X.to(device), y.to(device))
    loss.backward()
    with torch.no_grad():
        for p in params:
            p -= lr * p.grad / len(X)
            p.grad = None
return loss.item() / len(X)
