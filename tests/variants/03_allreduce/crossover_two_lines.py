# cell: tree_ring_crossover
# scores: full
# Each plan's time is a line a + b * m in the message size m; the crossover is where the lines meet.
if n < 1:
    raise ValueError(f"n must be >= 1, got {n}")
levels = math.ceil(math.log2(n)) if n > 1 else 0
tree_a, tree_b = 2 * levels * alpha, 2 * levels * beta
ring_a, ring_b = 2 * (n - 1) * alpha, 2 * (n - 1) / n * beta
if tree_b <= ring_b:
    return 0.0
return max(0.0, (ring_a - tree_a) / (tree_b - ring_b))
