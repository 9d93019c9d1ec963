# cell: train_batch
# scores: full
# d2l's train_batch: the loss written inline (per-sample losses, summed), torch.tensor_split
# for the shards, allreduce, then d2l.sgd's update that zeroes the gradients in place.
ce = torch.nn.CrossEntropyLoss(reduction="none")
X_shards, y_shards = torch.tensor_split(X, len(replicas)), torch.tensor_split(y, len(replicas))
ls = [ce(lenet(params, X_i.to(params[0].device)), y_i.to(params[0].device)).sum()
      for params, X_i, y_i in zip(replicas, X_shards, y_shards)]
for l in ls:
    l.backward()
with torch.no_grad():
    for i in range(len(replicas[0])):
        allreduce_([params[i].grad for params in replicas])
for params in replicas:
    with torch.no_grad():
        for p in params:
            p -= lr * p.grad / X.shape[0]
            p.grad.zero_()
return sum(l.item() for l in ls) / X.shape[0]
