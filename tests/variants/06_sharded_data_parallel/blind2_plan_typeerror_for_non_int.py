# cell: bucket_plan
# loses: test_bucket_plan
# Raises TypeError (the "Pythonic" choice for a wrong type) for a float or bool cap; the contract asks for a
# ValueError naming cap_bytes whenever it is not a positive int (only <= 0 gets the ValueError here).
if isinstance(cap_bytes, bool) or not isinstance(cap_bytes, int):
    raise TypeError(f"cap_bytes must be an int, got {type(cap_bytes).__name__}")
if cap_bytes <= 0:
    raise ValueError(f"cap_bytes must be positive, got {cap_bytes}")
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
