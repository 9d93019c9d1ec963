# cell: split_and_load
# scores: full
# Correct, d2l-like: compute the balanced bounds once, slice along axis 0 and move each shard with
# the framework's own call (.to for tensors, as_in_context for NDArrays); a plain list comes back.
num, size = len(ctxs), data.shape[0]
if size < num:
    raise ValueError(f"cannot split {size} samples over {num} devices: some device would get nothing")
step, extra = divmod(size, num)
bounds = [i * step + min(i, extra) for i in range(num + 1)]
is_torch = isinstance(data, torch.Tensor)
return [data[bounds[i]:bounds[i + 1]].to(ctx) if is_torch else data[bounds[i]:bounds[i + 1]].as_in_context(ctx)
        for i, ctx in enumerate(ctxs)]
