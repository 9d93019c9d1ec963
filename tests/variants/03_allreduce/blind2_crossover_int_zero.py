# cell: tree_ring_crossover
# loses: test_tree_ring_crossover
# Right size where the tree can win; where it never does (n = 1, 2, 3) returns the integer 0.
# Breaks: "-> float ... return 0.0" (type of the result).
if n < 1:
    raise ValueError(f"n must be >= 1, got {n}")
rounds = (n - 1).bit_length()
saved = n - 1 - rounds
if saved <= 0:
    return 0
return saved * n * alpha / ((n * rounds - (n - 1)) * beta)
