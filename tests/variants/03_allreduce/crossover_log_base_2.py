# cell: tree_ring_crossover
# loses: test_tree_ring_crossover
# rounds = ceil(log(n, 2)): math.log(2**29, 2) is 29.000000000000004, so 2**29 (and 2**31) workers get one round too many
if n < 1:
    raise ValueError(f"n must be >= 1, got {n}")
if n <= 3:
    return 0.0
rounds = math.ceil(math.log(n, 2))
return (2 * (n - 1) - 2 * rounds) * alpha / ((2 * rounds - 2 * (n - 1) / n) * beta)
