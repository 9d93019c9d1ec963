# cell: smallest_update
# loses: test_smallest_update
# binary search over bit patterns that starts at the smallest normal: for w = 0 or a subnormal w the answer, a subnormal, is never tried
int_dtype = _INT_VIEW[dtype]
wt = torch.tensor(w, dtype=dtype)
lo = int(torch.tensor(torch.finfo(dtype).tiny, dtype=dtype).view(int_dtype).item()) - 1
hi = int(torch.tensor(torch.finfo(dtype).max, dtype=dtype).view(int_dtype).item())
while hi - lo > 1:
    mid = (lo + hi) // 2
    if bool(wt + torch.tensor(mid, dtype=int_dtype).view(dtype) != wt):
        hi = mid
    else:
        lo = mid
return float(torch.tensor(hi, dtype=int_dtype).view(dtype).item())
