# cell: bucket_plan
# loses: test_bucket_plan
# right buckets, but each listed in registration order, not in the order its parameters were added
if isinstance(cap_bytes, bool) or not isinstance(cap_bytes, int) or cap_bytes <= 0:
    raise ValueError(f"cap_bytes must be a positive int, got {cap_bytes!r}")
buckets, current, size = [], [], 0
for i in reversed(range(len(nbytes))):
    current.append(i)
    size += nbytes[i]
    if size >= cap_bytes:
        buckets.append(sorted(current))
        current, size = [], 0
if current:
    buckets.append(sorted(current))
return buckets
