# cell: smallest_update
# loses: test_smallest_update
# Breaks "w is first rounded to dtype" as torch rounds it (torch.tensor(w, dtype=dtype)): FP16 and
# FP32 go through numpy (np.float16(w)), BF16 through torch (numpy has no bfloat16). numpy rounds a
# float64 straight to float16; torch goes through float32 first, so the two differ when that double
# rounding lands on a tie: w = 1 + 2^-11 + 2^-40 is 1.0 in torch's FP16 (answer 2^-11 + 2^-21) and
# 1 + 2^-10 in numpy's (answer 2^-11). Every w that is an FP32 value, all the visible ones, agrees.
if dtype == torch.bfloat16:
    int_dt = _INT_VIEW[dtype]
    w_t = torch.tensor(w, dtype=dtype)

    def changes(bits: int) -> bool:
        return bool(w_t + torch.tensor(bits, dtype=int_dt).view(dtype) != w_t)

    def value(bits: int) -> float:
        return float(torch.tensor(bits, dtype=int_dt).view(dtype))
else:
    np_float = {torch.float16: np.float16, torch.float32: np.float32}[dtype]
    np_int = {torch.float16: np.int16, torch.float32: np.int32}[dtype]
    w_np = np_float(w)

    def value(bits: int) -> float:
        return float(np.array(bits, dtype=np_int).view(np_float)[()])

    def changes(bits: int) -> bool:
        with np.errstate(over="ignore"):
            return bool(w_np + np.array(bits, dtype=np_int).view(np_float)[()] != w_np)

lo = 0
hi = {torch.bfloat16: 0x7F80, torch.float16: 0x7C00, torch.float32: 0x7F800000}[dtype]  # +inf
while hi - lo > 1:
    mid = (lo + hi) // 2
    if changes(mid):
        hi = mid
    else:
        lo = mid
return value(hi)
