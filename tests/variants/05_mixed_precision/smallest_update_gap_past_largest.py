# cell: smallest_update
# loses: test_smallest_update
# No search: half the gap to the next value in the direction of delta, one step more when w's
# last bit is even (the tie goes back to w). Right everywhere but at the largest finite value,
# whose next pattern up is inf: the gap comes out inf (the sum overflows at half a gap, 16 for
# float16's 65504).
int_type = _INT_VIEW[dtype]
w_t = torch.tensor(float(w), dtype=dtype)
bits = int(w_t.view(int_type))
tiny = torch.tensor(1, dtype=int_type).view(dtype)
if float(w_t) == 0.0:
    return float(tiny)
step = 1 if float(w_t) > 0 else -1  # positive: next pattern up; negative: toward zero
neighbour = torch.tensor(bits + step, dtype=int_type).view(dtype)
gap = (neighbour.double() - w_t.double()).abs()
half = (gap / 2).to(dtype)
if float(half) != float(gap) / 2 or float(half) == 0.0:  # half the gap is not a value of dtype
    return float(gap.to(dtype))
if bits & 1:
    return float(half)
return float(torch.tensor(int(half.view(int_type)) + 1, dtype=int_type).view(dtype))
