# cell: smallest_update
# region: 1
# scores: full
# Correct, without a search: the spacing s from w's rounded value up to the next value of dtype
# (2^(e-1) eps from math.frexp, halved below a negative power of two, never below the smallest
# subnormal), then ties to even: half of s is enough when w's last bit is odd (the tie goes up,
# to the even neighbour), otherwise the next value of dtype above s/2; when s/2 is not a value of
# dtype (s is the smallest subnormal) the answer is s. Python floats hold every FP32/BF16/FP16
# value exactly, so the arithmetic is exact.
info = torch.finfo(dtype)
wr = float(torch.tensor(w, dtype=dtype))
sub = float(info.tiny) * float(info.eps)  # smallest subnormal
if wr == 0.0:
    own = sub
    m = None
else:
    m, e = math.frexp(abs(wr))
    own = max(2.0 ** (e - 1) * float(info.eps), sub)  # spacing next to |wr| (upwards in magnitude)
s = own
if wr < 0 and m == 0.5:  # -2^k: the neighbour towards zero is closer
    s = max(own / 2, sub)
half = s / 2
if half < sub:  # s is the smallest subnormal: nothing between 0 and s is a value of dtype
    return float(s)
last_bit_odd = int(abs(wr) / own) % 2 == 1
if last_bit_odd:
    return float(half)
return float(half + max(half * float(info.eps), sub))
