# cell: bucket_plan
# scores: full
# Correct, another style: an explicit index walk from the last parameter down, the bool/float/negative cap
# rejected with a ValueError that names cap_bytes; the open bucket is kept when the walk ends, a bucket closes
# as soon as it holds at least the cap (>=), sizes of 0 included like any other.
if type(cap_bytes) is not int or cap_bytes < 1:
    raise ValueError(f"cap_bytes must be a positive int, got {cap_bytes!r}")
plan, open_bucket, held = [], [], 0
i = len(nbytes) - 1
while i >= 0:
    open_bucket.append(i)
    held += nbytes[i]
    if held >= cap_bytes:
        plan.append(open_bucket)
        open_bucket, held = [], 0
    i -= 1
if open_bucket:
    plan.append(open_bucket)
return plan
