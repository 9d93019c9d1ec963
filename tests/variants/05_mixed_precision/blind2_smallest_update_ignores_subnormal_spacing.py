# cell: smallest_update
# region: 1
# loses: test_smallest_update
# Case analysis from the exponent (math.frexp): spacing = 2^(e-1) * eps, halved below a
# negative power of two, ties to even from the last bit. It forgets that below the smallest
# normal the spacing stops shrinking (it is the smallest subnormal there): for a subnormal w
# (e.g. 2^-20 in FP16, 1e-40 in FP32) it returns a "half spacing" that is not a value of
# dtype at all (the promise: delta is itself a value of dtype) and does not change w.
info = torch.finfo(dtype)
wr = float(torch.tensor(w, dtype=dtype))
smallest_sub = info.tiny * info.eps
if wr == 0.0:
    return float(smallest_sub)
m, e = math.frexp(abs(wr))  # |wr| = m * 2^e, 0.5 <= m < 1
own = 2.0 ** (e - 1) * info.eps  # spacing next to |wr|
up = own / 2 if (wr < 0 and m == 0.5) else own  # spacing towards +inf
half = up / 2
odd = int(abs(wr) / own) % 2 == 1
if odd:
    return float(half)
return float(half + half * info.eps)  # the next value of dtype above half the spacing
