# cell: split_batch
# scores: full
# Correct, another API: the sizes are written out (first |B| mod n shards one larger) and
# torch.split cuts both tensors into views with those sizes; zip gives tuples, list() a list.
if len(X) != len(y):
    raise ValueError(f"X has {len(X)} samples but y has {len(y)}")
if len(X) < num_devices:
    raise ValueError(f"{len(X)} samples cannot be split over {num_devices} devices")
q, r = divmod(len(X), num_devices)
sizes = [q + 1] * r + [q] * (num_devices - r)
return list(zip(torch.split(X, sizes), torch.split(y, sizes)))
