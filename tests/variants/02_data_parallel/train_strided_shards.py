# cell: train_batch
# loses: test_train_batch
# Deals the samples out like cards (replica i takes samples i, i + n, i + 2n, ...): every sample
# once and the same sum of gradients to rounding, but not Exercise 1's contiguous shards.
k = len(replicas)
total_loss = 0.0
for i, params in enumerate(replicas):
    device = params[0].device
    loss = loss_fn(params, X[i::k].to(device), y[i::k].to(device))
    loss.backward()
    total_loss += loss.item()
for j in range(len(replicas[0])):
    allreduce_([params[j].grad for params in replicas])
with torch.no_grad():
    for params in replicas:
        for p in params:
            p -= lr * p.grad / len(X)
            p.grad = None
return total_loss / len(X)
