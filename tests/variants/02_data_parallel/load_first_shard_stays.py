# cell: split_and_load
# loses: test_split_and_load
# Assumes the batch already sits on the first device, so shard 0 is left where the data is and
# only the others are moved: wrong whenever ctxs[0] is not the data's device.
n, k = data.shape[0], len(ctxs)
if n < k:
    raise ValueError(f"data has {n} samples but there are {k} devices")
base, extra = divmod(n, k)
shards, start = [], 0
for i, ctx in enumerate(ctxs):
    size = base + (1 if i < extra else 0)
    shard = data[start:start + size]
    if i > 0:
        shard = shard.to(ctx) if isinstance(shard, torch.Tensor) else shard.as_in_context(ctx)
    shards.append(shard)
    start += size
return shards
