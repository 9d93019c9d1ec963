# cell: tree_ring_crossover
# scores: full
# Another closed form: the latency the tree saves, (N-1-L) alpha, over the extra seconds per byte it pays,
# (L - (N-1)/N) beta, with L found by an integer loop (no float log). The subtraction L - (N-1)/N is of numbers
# of different size (L >= 1 > (N-1)/N), so it keeps its digits at n = 2^31 + 1.
if n < 1:
    raise ValueError(f"n must be >= 1, got n={n}")
rounds = 0
while (1 << rounds) < n:
    rounds += 1
gain = (n - 1 - rounds) * alpha
if gain <= 0:
    return 0.0
loss = (rounds - (n - 1) / n) * beta
return gain / loss
