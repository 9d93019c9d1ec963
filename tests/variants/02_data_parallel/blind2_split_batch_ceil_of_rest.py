# cell: split_batch
# scores: full
# correct, another rule: shard i takes ceil(remaining / devices left), which gives the same
# balanced sizes (first B mod n shards one larger) for every B >= n.
if len(X) != len(y):
    raise ValueError(f"X has {len(X)} samples but y has {len(y)}")
if len(X) < num_devices:
    raise ValueError(f"cannot split {len(X)} samples over {num_devices} devices")
shards, start = [], 0
for i in range(num_devices):
    size = -(-(len(X) - start) // (num_devices - i))
    shards.append((X[start:start + size], y[start:start + size]))
    start += size
return shards
