# cell: bucket_plan
# loses: test_bucket_plan
# fills buckets from the first parameter to the last: the first bucket is ready last
buckets, current, size = [], [], 0
for i in range(len(nbytes)):
    current.append(i)
    size += nbytes[i]
    if size >= cap_bytes:
        buckets.append(current)
        current, size = [], 0
if current:
    buckets.append(current)
return buckets
