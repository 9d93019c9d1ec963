# cell: tree_ring_crossover
# loses: test_tree_ring_crossover
# wrong: "to 1e-9 relative, n up to 2^31 + 1": slopes read off allreduce_time by a difference of two nearly equal times lose digits at n = 2^31 (4e-9 relative off)
if n < 1:
    raise ValueError(f"n must be at least 1, got n={n}")
t0, r0 = allreduce_time("tree", n, 0, alpha, beta), allreduce_time("ring", n, 0, alpha, beta)
m1 = max(alpha / beta, 1.0) if beta > 0 else 1.0  # a size where both terms matter: no cancellation
t1, r1 = allreduce_time("tree", n, m1, alpha, beta), allreduce_time("ring", n, m1, alpha, beta)
dt, dr = (t1 - t0) / m1, (r1 - r0) / m1
if r0 <= t0 or dt <= dr:
    return 0.0
return float((r0 - t0) / (dt - dr))
