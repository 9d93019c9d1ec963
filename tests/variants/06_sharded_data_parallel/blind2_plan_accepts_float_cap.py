# cell: bucket_plan
# loses: test_bucket_plan
# Validates only the sign of cap_bytes: a float cap (1.5, 100.0) or True is accepted and planned with, where the
# contract asks for a ValueError naming cap_bytes whenever it is not a positive int.
if cap_bytes <= 0:
    raise ValueError(f"cap_bytes must be positive, got {cap_bytes!r}")
plan, bucket, held = [], [], 0
for i in reversed(range(len(nbytes))):
    bucket.append(i)
    held += nbytes[i]
    if held >= cap_bytes:
        plan.append(bucket)
        bucket, held = [], 0
if bucket:
    plan.append(bucket)
return plan
