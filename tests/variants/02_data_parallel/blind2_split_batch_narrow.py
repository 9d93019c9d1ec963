# cell: split_batch
# scores: full
# Tensor.size(0) and Tensor.narrow: the contract gives PyTorch tensors, so tensor methods will do.
if X.size(0) != y.size(0):
    raise ValueError(f"X has {X.size(0)} samples but y has {y.size(0)}")
if X.size(0) < num_devices:
    raise ValueError(f"{X.size(0)} samples cannot be split over {num_devices} devices")
base, extra = divmod(X.size(0), num_devices)
shards, start = [], 0
for i in range(num_devices):
    size = base + (i < extra)
    shards.append((X.narrow(0, start, size), y.narrow(0, start, size)))
    start += size
return shards
