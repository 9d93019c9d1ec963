# cell: smallest_update
# loses: test_smallest_update
# Breaks "w is first rounded to dtype" for a w that rounds to zero: the zero case is tested on the
# Python float w (w == 0.0), and the neighbour toward +inf is one bit pattern up when the rounded
# w is >= 0. A tiny negative w (w = -1e-30 in float16 or bfloat16) rounds to -0.0: -0.0 >= 0 holds,
# and one bit pattern up from -0.0 is minus the smallest subnormal, so the answer comes out
# negative (-2^-24 in float16) instead of the smallest subnormal. Every other w is right.
int_dt = _INT_VIEW[dtype]
if w == 0.0:
    return float(torch.tensor(1, dtype=int_dt).view(dtype))  # 0 + the smallest positive value


def from_bits(bits: int) -> torch.Tensor:
    return torch.tensor(bits, dtype=int_dt).view(dtype)


def next_up(t: torch.Tensor) -> torch.Tensor:  # the next value of dtype above t (t >= 0)
    return from_bits(int(t.view(int_dt)) + 1)


wt = torch.tensor(w, dtype=dtype)
bits = int(wt.view(int_dt))
step = 1 if wt >= 0 else -1  # positive: patterns grow with the value; negative: they shrink
up = float(from_bits(bits + step))
if math.isfinite(up):
    gap = up - float(wt)
else:  # w is the largest value: the spacing of its own binade
    gap = float(wt) - float(from_bits(bits - step))
half = torch.tensor(gap / 2, dtype=dtype)
if float(half) < gap / 2:  # half the gap is below the smallest subnormal
    half = next_up(half)
if bool(wt + half != wt):  # the tie rounds away from w
    return float(half)
return float(next_up(half))
