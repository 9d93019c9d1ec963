# cell: split_batch
# loses: test_split_batch
n = len(X)
if len(y) != n:
    raise ValueError(f"X has {n} samples but y has {len(y)}")
if n < num_devices:
    raise ValueError(f"a batch of {n} samples cannot be split over {num_devices} devices")
size = n // num_devices
return [(X[i * size:(i + 1) * size], y[i * size:(i + 1) * size]) for i in range(num_devices)]
