# cell: split_batch
# loses: test_split_batch
# Compares the number of samples with y.numel(), thinking of y as a vector of class labels. For a
# y with more than one axis (one-hot labels, per-sample targets of shape (N, k)) it raises
# ValueError on a batch whose lengths agree. Breaks "y is a PyTorch tensor whose first axis is the
# batch" / "raise ValueError if len(X) != len(y)" (only then).
if X.shape[0] != y.numel():
    raise ValueError(f"X has {X.shape[0]} samples but y has {y.numel()} labels")
if len(X) < num_devices:
    raise ValueError(f"{len(X)} samples cannot be split over {num_devices} devices")
base, extra = divmod(len(X), num_devices)
shards, start = [], 0
for i in range(num_devices):
    stop = start + base + (i < extra)
    shards.append((X[start:stop], y[start:stop]))
    start = stop
return shards
