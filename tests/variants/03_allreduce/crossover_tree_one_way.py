# cell: tree_ring_crossover
# loses: test_tree_ring_crossover
rounds = (n - 1).bit_length()  # the tree counted only on its way up: the broadcast back is forgotten
if n <= 3:
    return 0.0
return (2 * (n - 1) - rounds) * alpha / ((rounds - 2 * (n - 1) / n) * beta)
