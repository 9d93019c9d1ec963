# cell: tree_ring_crossover
# loses: test_tree_ring_crossover
rounds = int(math.log2(n))  # floor, not ceiling: 6 workers need 3 rounds, not 2
if n <= 3:
    return 0.0
return (2 * (n - 1) - 2 * rounds) * alpha / ((2 * rounds - 2 * (n - 1) / n) * beta)
