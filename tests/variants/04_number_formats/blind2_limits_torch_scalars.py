# cell: format_limits
# loses: test_format_limits
# Right values, wrong type: each limit is a 0-d float64 torch tensor, not a float. It compares equal to
# torch.finfo's floats (== gives tensor(True)) and formats like a float in the table, so only a test that
# checks isinstance(v, float) sees it. Breaks "each a float".
bias = 2 ** (exponent_bits - 1) - 1
two = torch.tensor(2.0, dtype=torch.float64)
eps = two ** -mantissa_bits
return {
    "eps": eps,
    "max": (2 - eps) * two ** bias,
    "min_normal": two ** (1 - bias),
    "min_subnormal": two ** (1 - bias - mantissa_bits),
}
