# cell: smallest_update
# loses: test_smallest_update
# searches with |w| ("the spacing does not depend on the sign"): for a negative power of two the step toward zero is the finer one below |w|
int_dtype = _INT_VIEW[dtype]
wt = torch.tensor(abs(w), dtype=dtype)
lo = 0
hi = int(torch.tensor(torch.finfo(dtype).max, dtype=dtype).view(int_dtype).item())
while hi - lo > 1:
    mid = (lo + hi) // 2
    if bool(wt + torch.tensor(mid, dtype=int_dtype).view(dtype) != wt):
        hi = mid
    else:
        lo = mid
return float(torch.tensor(hi, dtype=int_dtype).view(dtype).item())
