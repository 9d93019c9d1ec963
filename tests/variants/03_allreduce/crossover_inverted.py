# cell: tree_ring_crossover
# loses: test_tree_ring_crossover
rounds = (n - 1).bit_length()
if n <= 3:
    return 0.0
return (2 * rounds - 2 * (n - 1) / n) * beta / ((2 * (n - 1) - 2 * rounds) * alpha)  # upside down
