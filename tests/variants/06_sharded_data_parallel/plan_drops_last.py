# cell: bucket_plan
# loses: test_bucket_plan
# forgets the bucket left open at the end: its parameters are never averaged
if isinstance(cap_bytes, bool) or not isinstance(cap_bytes, int) or cap_bytes <= 0:
    raise ValueError(f"cap_bytes must be a positive int, got {cap_bytes!r}")
buckets, current, size = [], [], 0
for i in reversed(range(len(nbytes))):
    current.append(i)
    size += nbytes[i]
    if size >= cap_bytes:
        buckets.append(current)
        current, size = [], 0
return buckets
