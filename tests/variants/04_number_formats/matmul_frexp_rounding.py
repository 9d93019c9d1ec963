# cell: tf32_matmul
# loses: test_tf32_matmul
# rounds the inputs by float64 frexp to 11 significant bits of each value's own leading bit: right for normal numbers, too fine for FP32 subnormals
def to_tf32(t):
    m, e = torch.frexp(t.double())  # t = m * 2**e, 0.5 <= |m| < 1
    return torch.ldexp(torch.round(torch.ldexp(m, torch.full_like(e, 11))), e - 11).float()
return to_tf32(a) @ to_tf32(b)
