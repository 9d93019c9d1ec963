# cell: split_and_load
# scores: full
# correct, another way: reuses split_batch on (data, data) and moves with copyto / to
k = len(ctxs)
if data.shape[0] < k:
    raise ValueError(f"cannot put {data.shape[0]} samples on {k} devices")
out = []
for (part, _), ctx in zip(split_batch(data, data, k), ctxs):
    if hasattr(part, "as_in_context"):
        out.append(part.copyto(ctx))
    else:
        out.append(part.to(device=ctx))
return out
