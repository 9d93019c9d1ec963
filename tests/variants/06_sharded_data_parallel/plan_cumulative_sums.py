# cell: bucket_plan
# scores: full
# another way: running totals over the reversed sizes, a bucket ends where its total reaches the cap
if type(cap_bytes) is not int or cap_bytes < 1:
    raise ValueError(f"bad cap_bytes: {cap_bytes!r} (a positive int)")
order = list(range(len(nbytes)))[::-1]
buckets, begin, total = [], 0, 0
for k, i in enumerate(order):
    total += nbytes[i]
    if total >= cap_bytes or k == len(order) - 1:
        buckets.append(order[begin:k + 1])
        begin, total = k + 1, 0
return buckets
