# cell: smallest_update
# loses: test_smallest_update
w_t = torch.tensor(float(w), dtype=dtype)
if float(w_t) == 0.0:
    return float(torch.finfo(dtype).tiny * torch.finfo(dtype).eps)
exponent = math.floor(math.log2(abs(float(w_t))))
return 2.0 ** exponent * torch.finfo(dtype).eps
