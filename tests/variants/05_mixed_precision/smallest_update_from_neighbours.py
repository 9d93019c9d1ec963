# cell: smallest_update
# scores: full
# No search: the neighbour of w in the direction delta moves it, the gap to it, and the tie
# rule (half the gap is enough when w's last bit is odd), all from bit patterns.
int_type = _INT_VIEW[dtype]
w_t = torch.tensor(float(w), dtype=dtype)
bits = int(w_t.view(int_type))
tiny = torch.tensor(1, dtype=int_type).view(dtype)
if float(w_t) == 0.0:
    return float(tiny)
step = 1 if float(w_t) > 0 else -1  # positive: next pattern up; negative: toward zero
neighbour = torch.tensor(bits + step, dtype=int_type).view(dtype)
if not bool(torch.isfinite(neighbour)):  # past the largest value: its gap is the one below it
    neighbour = torch.tensor(bits - step, dtype=int_type).view(dtype)
gap = (neighbour.double() - w_t.double()).abs()
half = (gap / 2).to(dtype)
if float(half) != float(gap) / 2 or float(half) == 0.0:  # half the gap is not a value of dtype
    return float(gap.to(dtype))
if bits & 1:
    return float(half)
return float(torch.tensor(int(half.view(int_type)) + 1, dtype=int_type).view(dtype))
