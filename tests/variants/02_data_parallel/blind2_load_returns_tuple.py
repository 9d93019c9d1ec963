# cell: split_and_load
# loses: test_split_and_load
# Right sizes, devices and error, but returns a tuple of shards. Breaks "Return the list of shards"
# (indexing and len() work, so the visible test passes; gluon's split_and_load returns a list).
n, size = len(ctxs), data.shape[0]
if size < n:
    raise ValueError(f"{size} samples cannot be split over {n} devices")
base, extra = divmod(size, n)
parts, start = [], 0
for i, ctx in enumerate(ctxs):
    stop = start + base + (i < extra)
    shard = data[start:stop]
    parts.append(shard.to(ctx) if isinstance(data, torch.Tensor) else shard.as_in_context(ctx))
    start = stop
return tuple(parts)
