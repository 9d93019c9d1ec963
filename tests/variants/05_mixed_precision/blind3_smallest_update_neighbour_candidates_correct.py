# cell: smallest_update
# scores: full
# Correct, another style: no search. Round w (torch), read its neighbour toward +inf off the bit
# pattern (up for a positive number, down for a negative one; past the largest, the same binade's
# spacing), take the first value of dtype at or above half that gap and the next one after it,
# and return the first whose sum with w differs (the tie goes to w or away from it). A w that
# rounds to zero (either sign) answers the smallest subnormal.
int_dt = _INT_VIEW[dtype]


def from_bits(bits: int) -> torch.Tensor:
    return torch.tensor(bits, dtype=int_dt).view(dtype)


def next_up(t: torch.Tensor) -> torch.Tensor:  # the next value of dtype above t (t >= 0, not -0.0)
    return from_bits(int(t.view(int_dt)) + 1)


wt = torch.tensor(w, dtype=dtype)
if float(wt) == 0.0:  # +0.0 or -0.0: the smallest positive value changes it
    return float(from_bits(1))
bits = int(wt.view(int_dt))
step = 1 if float(wt) > 0 else -1
up = float(from_bits(bits + step))
if math.isfinite(up):
    gap = up - float(wt)
else:  # w is the largest value: the spacing of its own binade
    gap = float(wt) - float(from_bits(bits - step))
half = torch.tensor(gap / 2, dtype=dtype).abs()  # abs: a half below the subnormals rounds to 0.0
if float(half) < gap / 2:
    half = next_up(half)
if bool(wt + half != wt):
    return float(half)
return float(next_up(half))
