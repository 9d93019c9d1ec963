# cell: smallest_update
# loses: test_smallest_update
# Breaks "w is a Python float (first rounded to dtype)": the probe adds delta to w as given (a
# float64 sum) and rounds the sum once, instead of adding delta to w rounded to dtype. For every w
# that is a value of dtype (all the visible cases) the sum is exact and the answer is right; for a
# w that is not, e.g. w = 1 + 2^-9 in bfloat16 (which rounds to 1.0), it returns 2^-9 + 2^-16
# instead of 2^-8 + 2^-15.
int_dt = _INT_VIEW[dtype]
w_rounded = torch.tensor(w, dtype=dtype)


def changes(bits: int) -> bool:
    delta = torch.tensor(bits, dtype=int_dt).view(dtype)
    return bool(torch.tensor(w + float(delta), dtype=dtype) != w_rounded)


lo = 0  # delta = 0 changes nothing
hi = int(torch.tensor(float("inf"), dtype=dtype).view(int_dt))  # w + inf = inf always differs
while hi - lo > 1:
    mid = (lo + hi) // 2
    if changes(mid):
        hi = mid
    else:
        lo = mid
return float(torch.tensor(hi, dtype=int_dt).view(dtype))
