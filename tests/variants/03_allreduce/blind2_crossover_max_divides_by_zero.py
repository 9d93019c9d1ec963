# cell: tree_ring_crossover
# loses: test_tree_ring_crossover
# Exact closed form, clamped with max(0.0, ...) for "never faster"; but the division comes before the clamp and
# for n = 1 both the tree's and the ring's slopes vanish (0 rounds, 0 steps): ZeroDivisionError.
# Breaks: "Where the model never predicts the tree faster, return 0.0" (n = 1 is valid: only n < 1 raises).
if n < 1:
    raise ValueError(f"n must be >= 1, got {n}")
rounds = (n - 1).bit_length()
size = (n - 1 - rounds) * n * alpha / ((n * rounds - (n - 1)) * beta)
return max(0.0, size)
