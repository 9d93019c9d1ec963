# cell: bucket_plan
# loses: test_bucket_plan
# Keeps the open bucket at the end only if it holds bytes ("if held:"): trailing parameters of size 0 (the first
# ones in registration order, after the last bucket closed) are in no bucket. Sizes may be 0, and a bucket left
# open at the end is kept: [0, 0, 50, 0] with cap 50 must give [[3, 2], [1, 0]], this gives [[3, 2]].
if isinstance(cap_bytes, bool) or not isinstance(cap_bytes, int) or cap_bytes <= 0:
    raise ValueError(f"cap_bytes must be a positive int, got {cap_bytes!r}")
plan, bucket, held = [], [], 0
for i in reversed(range(len(nbytes))):
    bucket.append(i)
    held += nbytes[i]
    if held >= cap_bytes:
        plan.append(bucket)
        bucket, held = [], 0
if held:
    plan.append(bucket)
return plan
