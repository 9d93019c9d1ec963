# cell: tree_ring_crossover
# loses: test_tree_ring_crossover
# rounds from np.ceil(np.log2(n)): right values, but the crossover is a numpy.float64, not a float
if n < 1:
    raise ValueError(f"n must be >= 1, got {n}")
rounds = np.ceil(np.log2(n))
if n <= 3:
    return 0.0
return (2 * (n - 1) - 2 * rounds) * alpha / ((2 * rounds - 2 * (n - 1) / n) * beta)
