# cell: split_batch
# loses: test_split_batch
# the right shards, each pair built as a list [X_i, y_i]: the contract asks for tuples (X_i, y_i)
n = len(X)
if len(y) != n:
    raise ValueError(f"X has {n} samples but y has {len(y)}")
if n < num_devices:
    raise ValueError(f"a batch of {n} samples cannot be split over {num_devices} devices")
base, extra = divmod(n, num_devices)
shards, start = [], 0
for i in range(num_devices):
    size = base + (1 if i < extra else 0)
    shards.append([X[start:start + size], y[start:start + size]])
    start += size
return shards
