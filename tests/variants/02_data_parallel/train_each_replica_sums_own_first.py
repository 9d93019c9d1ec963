# cell: train_batch
# loses: test_train_batch
# each replica adds the others' gradients to its own: every replica holds the sum, but each added
# in another order, so from three replicas on their parameters differ in the last bits and the
# replicas drift apart
total_loss = 0.0
for params, (X_i, y_i) in zip(replicas, split_batch(X, y, len(replicas))):
    loss = loss_fn(params, X_i.to(params[0].device), y_i.to(params[0].device))
    loss.backward()
    total_loss += loss.item()
for j in range(len(replicas[0])):
    grads = [params[j].grad for params in replicas]
    totals = []
    for i, g in enumerate(grads):
        total = g.clone()
        for other in grads[:i] + grads[i + 1:]:
            total += other.to(total.device)
        totals.append(total)
    for g, total in zip(grads, totals):
        g.copy_(total)
with torch.no_grad():
    for params in replicas:
        for p in params:
            p -= lr * p.grad / len(X)
            p.grad = None
return total_loss / len(X)
