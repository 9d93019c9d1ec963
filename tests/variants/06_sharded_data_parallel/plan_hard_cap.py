# cell: bucket_plan
# loses: test_bucket_plan
# treats the cap as a hard limit: closes the bucket before a parameter that would take it over
if isinstance(cap_bytes, bool) or not isinstance(cap_bytes, int) or cap_bytes <= 0:
    raise ValueError(f"cap_bytes must be a positive int, got {cap_bytes!r}")
buckets, current, size = [], [], 0
for i in reversed(range(len(nbytes))):
    if current and size + nbytes[i] > cap_bytes:
        buckets.append(current)
        current, size = [], 0
    current.append(i)
    size += nbytes[i]
if current:
    buckets.append(current)
return buckets
