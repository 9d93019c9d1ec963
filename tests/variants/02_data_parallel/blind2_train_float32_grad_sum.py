# cell: train_batch
# loses: test_train_batch
# Sums the gradients into an accumulator made with torch.zeros(shape), whose dtype is the default
# float32 whatever the replicas' dtype. Right for float32 replicas (the visible test); for float64
# replicas every gradient is rounded to float32 and the step differs from sgd_step by ~1e-7
# relative. Breaks "a replica is ... of one floating-point dtype (float32 here)": the step must be
# SGD's in that dtype.
n = len(replicas)
X_parts, y_parts = torch.tensor_split(X, n), torch.tensor_split(y, n)
total_loss = 0.0
for params, X_i, y_i in zip(replicas, X_parts, y_parts):
    device = params[0].device
    for p in params:
        p.grad = None
    loss = loss_fn(params, X_i.to(device), y_i.to(device))
    loss.backward()
    total_loss += loss.item()
with torch.no_grad():
    for j in range(len(replicas[0])):
        grads = [params[j].grad for params in replicas]
        total = torch.zeros(grads[0].shape, device=grads[0].device)
        for g in grads:
            total += g.to(total.device)
        for g in grads:
            g.copy_(total)
    for params in replicas:
        for p in params:
            p -= lr * p.grad / len(X)
return total_loss / len(X)
