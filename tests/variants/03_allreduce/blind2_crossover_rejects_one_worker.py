# cell: tree_ring_crossover
# loses: test_tree_ring_crossover
# "A crossover needs at least two workers": raises ValueError for n = 1, where the contract wants 0.0.
# Breaks: "Raise ValueError naming the argument for n < 1" (n = 1 is valid; the tree is never faster there).
if n < 2:
    raise ValueError(f"n must be at least 2 for a tree/ring crossover, got {n}")
rounds = (n - 1).bit_length()
saved = n - 1 - rounds
if saved <= 0:
    return 0.0
return saved * n * alpha / ((n * rounds - (n - 1)) * beta)
