# cell: smallest_update
# region: 1
# loses: test_smallest_update
# Binary search over bit patterns, as suggested, but with the upper end fixed at delta = 1.0
# ("updates are small"). Breaks the promise for every w whose smallest update exceeds 1.0
# (|w| >= 256 in BF16, >= 2048 in FP16, >= 2^24 in FP32, e.g. 65504 in FP16 or 1000 in BF16):
# the search never finds a delta that changes w and returns 1.0, which does not change it.
int_dt = _INT_VIEW[dtype]
w_t = torch.tensor(w, dtype=dtype)
lo = 0
hi = int(torch.tensor(1.0, dtype=dtype).view(int_dt))
while hi - lo > 1:
    mid = (lo + hi) // 2
    delta = torch.tensor(mid, dtype=int_dt).view(dtype)
    if bool(w_t + delta != w_t):
        hi = mid
    else:
        lo = mid
return float(torch.tensor(hi, dtype=int_dt).view(dtype))
