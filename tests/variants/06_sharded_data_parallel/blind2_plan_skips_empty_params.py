# cell: bucket_plan
# loses: test_bucket_plan
# Skips parameters of size 0 ("nothing to send"): they end up in no bucket, so a DDP built on this plan never
# counts them as arrived. The contract adds every parameter to the open bucket, sizes of 0 included.
if isinstance(cap_bytes, bool) or not isinstance(cap_bytes, int) or cap_bytes <= 0:
    raise ValueError(f"cap_bytes must be a positive int, got {cap_bytes!r}")
plan, bucket, held = [], [], 0
for i in reversed(range(len(nbytes))):
    if nbytes[i] == 0:
        continue
    bucket.append(i)
    held += nbytes[i]
    if held >= cap_bytes:
        plan.append(bucket)
        bucket, held = [], 0
if bucket:
    plan.append(bucket)
return plan
