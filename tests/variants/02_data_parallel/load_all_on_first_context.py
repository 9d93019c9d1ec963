# cell: split_and_load
# loses: test_split_and_load
n, k = data.shape[0], len(ctxs)
if n < k:
    raise ValueError(f"data has {n} samples but there are {k} contexts")
base, extra = divmod(n, k)
shards, start = [], 0
for i in range(k):
    size = base + (1 if i < extra else 0)
    shard = data[start:start + size]
    shards.append(shard.to(ctxs[0]) if isinstance(shard, torch.Tensor) else shard.as_in_context(ctxs[0]))
    start += size
return shards
