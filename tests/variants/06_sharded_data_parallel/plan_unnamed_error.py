# cell: bucket_plan
# loses: test_bucket_plan
# a bad cap is refused, but the error does not say which argument
if isinstance(cap_bytes, bool) or not isinstance(cap_bytes, int) or cap_bytes <= 0:
    raise ValueError("invalid value")
buckets, current, size = [], [], 0
for i in reversed(range(len(nbytes))):
    current.append(i)
    size += nbytes[i]
    if size >= cap_bytes:
        buckets.append(current)
        current, size = [], 0
if current:
    buckets.append(current)
return buckets
