# cell: train_batch
# loses: test_train_batch
# Shards the batch with torch.chunk, which cuts pieces of ceil(B/n): 10 on 3 gives 4, 4, 2 (the
# sum of the losses, hence the step, is still right, so the visible test passes), 10 on 4 gives
# 3, 3, 3, 1, and 4 on 3 gives only two pieces, so zip leaves replica 2 without a shard and
# without gradients and the step fails. Breaks "replica i runs only on shard i of the batch
# (Exercise 1's split)" and "for any batch size of at least n".
n = len(replicas)
X_parts, y_parts = torch.chunk(X, n), torch.chunk(y, n)
for params in replicas:
    for p in params:
        p.grad = None
total_loss = 0.0
for params, X_i, y_i in zip(replicas, X_parts, y_parts):
    device = params[0].device
    loss = loss_fn(params, X_i.to(device), y_i.to(device))
    loss.backward()
    total_loss += loss.item()
with torch.no_grad():
    for j in range(len(replicas[0])):
        grads = [params[j].grad for params in replicas]
        total = grads[0].clone()
        for g in grads[1:]:
            total += g.to(total.device)
        for g in grads:
            g.copy_(total)
    for params in replicas:
        for p in params:
            p -= lr * p.grad / len(X)
return total_loss / len(X)
