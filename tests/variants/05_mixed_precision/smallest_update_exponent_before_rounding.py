# cell: smallest_update
# loses: test_smallest_update
# The spacing read off w's exponent before w is rounded to dtype: right for every w except the
# ones just below a power of two, which round up to it (and whose spacing is then twice as large).
mant = {torch.float32: 23, torch.bfloat16: 7, torch.float16: 10}[dtype]
min_exp = {torch.float32: -126, torch.bfloat16: -126, torch.float16: -14}[dtype]
int_type = _INT_VIEW[dtype]
w_t = torch.tensor(float(w), dtype=dtype)
if float(w) == 0.0:
    return float(torch.tensor(1, dtype=int_type).view(dtype))
exp = max(math.frexp(abs(float(w)))[1] - 1, min_exp)  # the exponent of w as given
spacing = 2.0 ** (exp - mant)
if w < 0 and abs(float(w)) == 2.0 ** exp:  # moving toward zero from a power of two
    spacing /= 2
half = spacing / 2
odd = int(w_t.view(int_type)) & 1
tiny = float(torch.tensor(1, dtype=int_type).view(dtype))
if half < tiny:
    return max(spacing, tiny)
if odd:
    return half
return float((torch.tensor(half, dtype=dtype).view(int_type) + 1).view(dtype))
