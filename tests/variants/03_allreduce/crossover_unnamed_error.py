# cell: tree_ring_crossover
# loses: test_tree_ring_crossover
# Right crossover, but the error for n < 1 does not say which argument is wrong.
if n < 1:
    raise ValueError("invalid input")
rounds = math.ceil(math.log2(n)) if n > 1 else 0
extra_startups = (2 * (n - 1) - 2 * rounds) * alpha
extra_per_byte = (2 * rounds - 2 * (n - 1) / n) * beta
if n == 1 or extra_startups <= 0:
    return 0.0
return extra_startups / extra_per_byte
