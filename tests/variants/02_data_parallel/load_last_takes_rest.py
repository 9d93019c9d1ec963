# cell: split_and_load
# loses: test_split_and_load
n, k = data.shape[0], len(ctxs)
if n < k:
    raise ValueError(f"data has {n} samples but there are {k} contexts")
step = n // k
bounds = [i * step for i in range(k)] + [n]
return [data[bounds[i]:bounds[i + 1]].to(ctx) if isinstance(data, torch.Tensor)
        else data[bounds[i]:bounds[i + 1]].as_in_context(ctx) for i, ctx in enumerate(ctxs)]
