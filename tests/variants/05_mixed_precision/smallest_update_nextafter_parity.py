# cell: smallest_update
# scores: full
# no search: half the gap to the neighbour toward +inf, one value more when w's last bit is even (the tie goes back to w)
info = torch.finfo(dtype)
wt = torch.tensor(w, dtype=dtype)
inf = torch.tensor(math.inf, dtype=dtype)
if float(wt) == info.max:  # no finite neighbour above: the tie past max rounds to inf
    gap = float(wt - torch.nextafter(wt, -inf))
else:
    gap = float(torch.nextafter(wt, inf) - wt)
half, smallest = gap / 2, info.tiny * info.eps
if half < smallest:  # half the gap is not a value of dtype: the smallest subnormal changes w
    return float(smallest)
if int(wt.view(_INT_VIEW[dtype]).item()) & 1:  # odd: the tie rounds to the even neighbour, away from w
    return float(half)
return float(torch.nextafter(torch.tensor(half, dtype=dtype), inf).item())
