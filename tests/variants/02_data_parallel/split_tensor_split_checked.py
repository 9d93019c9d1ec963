# cell: split_batch
# scores: full
# torch.tensor_split cuts the same balanced, contiguous shards; the checks are added.
if len(X) != len(y):
    raise ValueError(f"X has {len(X)} samples, y has {len(y)}")
if len(X) < num_devices:
    raise ValueError(f"{len(X)} samples cannot be split over {num_devices} devices")
return list(zip(torch.tensor_split(X, num_devices), torch.tensor_split(y, num_devices)))
