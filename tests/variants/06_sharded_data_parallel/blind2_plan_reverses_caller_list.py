# cell: bucket_plan
# loses: test_bucket_plan
# Right buckets, but walks "from the last" by reversing the caller's list in place: every call leaves nbytes
# reversed (the notebook calls bucket_plan(sizes, ...) three times on one list, then plans `sizes` again in
# section 3). The arguments are inputs; nothing in the contract allows changing them.
if isinstance(cap_bytes, bool) or not isinstance(cap_bytes, int) or cap_bytes <= 0:
    raise ValueError(f"cap_bytes must be a positive int, got {cap_bytes!r}")
nbytes.reverse()
last = len(nbytes) - 1
plan, bucket, held = [], [], 0
for j, size in enumerate(nbytes):
    bucket.append(last - j)
    held += size
    if held >= cap_bytes:
        plan.append(bucket)
        bucket, held = [], 0
if bucket:
    plan.append(bucket)
return plan
