# cell: smallest_update
# region: 1
# loses: test_smallest_update
# FP32 through NumPy (np.nextafter on np.float32, a bisection over FP32 values), BF16 and
# FP16 through torch bit patterns. The values are right, but the FP32 branch returns a
# numpy.float32, not a Python float (the promise: "Return a Python float"); the visible
# type check only looks at bfloat16.
import numpy as np
if dtype == torch.float32:
    w32 = np.float32(w)
    smallest = np.float32(np.finfo(np.float32).smallest_subnormal)
    with np.errstate(over="ignore"):
        hi = max(np.nextafter(np.float32(abs(w32)), np.float32(np.inf)), smallest)  # abs(w32) + hi != w32
        lo_i, hi_i = 0, int(np.float32(hi).view(np.int32))
        while hi_i - lo_i > 1:
            mid = (lo_i + hi_i) // 2
            d = np.int32(mid).view(np.float32)
            if np.float32(w32 + d) != w32:
                hi_i = mid
            else:
                lo_i = mid
    return np.int32(hi_i).view(np.float32)
int_dt = _INT_VIEW[dtype]
w_t = torch.tensor(w, dtype=dtype)
lo, hi = 0, int(torch.tensor(float("inf"), dtype=dtype).view(int_dt)) - 1
while hi - lo > 1:
    mid = (lo + hi) // 2
    if bool(w_t + torch.tensor(mid, dtype=int_dt).view(dtype) != w_t):
        hi = mid
    else:
        lo = mid
return float(torch.tensor(hi, dtype=int_dt).view(dtype))
