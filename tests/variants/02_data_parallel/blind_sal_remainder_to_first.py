# cell: split_and_load
# loses: test_split_and_load
# wrong: same sizes rule as Exercise 1 (here the whole remainder lands on shard 0: 10 on 4 gives 4, 2, 2, 2)
n, k = data.shape[0], len(ctxs)
if n < k:
    raise ValueError(f"{n} samples cannot be split over {k} devices")
base, extra = divmod(n, k)
sizes = [base] * k
sizes[0] += extra
parts, start = [], 0
for size, ctx in zip(sizes, ctxs):
    part = data[start:start + size]
    parts.append(part.to(ctx) if isinstance(data, torch.Tensor) else part.as_in_context(ctx))
    start += size
return parts
