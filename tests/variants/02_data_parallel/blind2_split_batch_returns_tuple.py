# cell: split_batch
# loses: test_split_batch
# Correct shards and errors, but the pairs come back in a tuple, not a list. len(), indexing and
# iteration all work, so the visible test passes. Breaks "Return a list of num_devices pairs"
# (a caller that appends a shard, or checks isinstance(shards, list), fails).
if len(X) != len(y):
    raise ValueError(f"X has {len(X)} samples but y has {len(y)}")
if len(X) < num_devices:
    raise ValueError(f"{len(X)} samples cannot be split over {num_devices} devices")
base, extra = divmod(len(X), num_devices)
bounds = [0]
for i in range(num_devices):
    bounds.append(bounds[-1] + base + (i < extra))
return tuple((X[a:b], y[a:b]) for a, b in zip(bounds[:-1], bounds[1:]))
