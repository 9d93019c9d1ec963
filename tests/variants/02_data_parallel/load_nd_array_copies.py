# cell: split_and_load
# loses: test_split_and_load
# Makes each MXNet shard with nd.array(..., ctx=ctx): the right place, but nd.array makes float32
# whatever the data's dtype (float64 or int32 data comes back float32).
n, k = data.shape[0], len(ctxs)
if n < k:
    raise ValueError(f"data has {n} samples but there are {k} devices")
base, extra = divmod(n, k)
shards, start = [], 0
for i, ctx in enumerate(ctxs):
    size = base + (1 if i < extra else 0)
    shard = data[start:start + size]
    shards.append(shard.to(ctx) if isinstance(shard, torch.Tensor) else nd.array(shard.asnumpy(), ctx=ctx))
    start += size
return shards
