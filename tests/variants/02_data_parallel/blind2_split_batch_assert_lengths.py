# cell: split_batch
# loses: test_split_batch
# The length mismatch is checked with assert: it raises AssertionError, not ValueError (and
# disappears altogether under python -O). Breaks "raise ValueError if len(X) != len(y)". The
# too-few-samples error is right, so the visible test passes.
assert len(X) == len(y), f"X has {len(X)} samples but y has {len(y)}"
if len(X) < num_devices:
    raise ValueError(f"{len(X)} samples cannot be split over {num_devices} devices")
base, extra = divmod(len(X), num_devices)
shards, start = [], 0
for i in range(num_devices):
    stop = start + base + (i < extra)
    shards.append((X[start:stop], y[start:stop]))
    start = stop
return shards
