# cell: split_batch
# loses: test_split_batch
# Shard i ends at ceil((i + 1) * B / n). For 10 samples on 3 devices that gives 4, 3, 3, the visible
# case, but for 10 on 4 it gives 3, 2, 3, 2 and for 6 on 4 it gives 2, 1, 2, 1: sizes still differ
# by at most one, yet a shard is larger than one before it. Breaks "no shard is larger than one
# before it" (the first |B| mod n shards must take the extra samples).
if len(X) != len(y):
    raise ValueError(f"X has {len(X)} samples but y has {len(y)}")
B = len(X)
if B < num_devices:
    raise ValueError(f"{B} samples cannot be split over {num_devices} devices")
bounds = [-(-(i * B) // num_devices) for i in range(num_devices + 1)]  # ceil(i * B / n)
return [(X[bounds[i]:bounds[i + 1]], y[bounds[i]:bounds[i + 1]]) for i in range(num_devices)]
