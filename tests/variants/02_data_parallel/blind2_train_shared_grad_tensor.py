# cell: train_batch
# loses: test_train_batch
# "Allreduces" by computing the sum once and making it every replica's .grad (the same tensor
# object for all replicas on one device), and clears gradients with grad.zero_() at the start.
# The first call is right. On the second call backward accumulates every replica's shard gradient
# into that one shared tensor, so each replica's grad is already the full sum, and the sum over n
# replicas is n times too large. Breaks "two calls in a row equal two SGD steps" (the gradient
# buffers are aliased across replicas).
n = len(replicas)
X_parts, y_parts = torch.tensor_split(X, n), torch.tensor_split(y, n)
for params in replicas:
    for p in params:
        if p.grad is not None:
            p.grad.zero_()
total_loss = 0.0
for params, X_i, y_i in zip(replicas, X_parts, y_parts):
    device = params[0].device
    loss = loss_fn(params, X_i.to(device), y_i.to(device))
    loss.backward()
    total_loss += loss.item()
with torch.no_grad():
    for j in range(len(replicas[0])):
        home = replicas[0][j].device
        total = sum(params[j].grad.to(home) for params in replicas)
        for params in replicas:
            params[j].grad = total.to(params[j].device)
    for params in replicas:
        for p in params:
            p -= lr * p.grad / len(X)
return total_loss / len(X)
