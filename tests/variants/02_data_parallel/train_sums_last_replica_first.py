# cell: train_batch
# scores: full
# the replicas' gradients summed by hand, last replica first: "the same sum written out" in
# another order an allreduce may use (equal to the in-order sum to rounding, not to the bit)
total_loss = 0.0
for params, (X_i, y_i) in zip(replicas, split_batch(X, y, len(replicas))):
    device = params[0].device
    loss = loss_fn(params, X_i.to(device), y_i.to(device))
    loss.backward()
    total_loss += loss.item()
for j in range(len(replicas[0])):
    grads = [params[j].grad for params in replicas]
    total = grads[-1].clone()
    for g in reversed(grads[:-1]):
        total += g.to(total.device)
    for g in grads:
        g.copy_(total)
with torch.no_grad():
    for params in replicas:
        for p in params:
            p -= lr * p.grad / len(X)
            p.grad = None
return total_loss / len(X)
