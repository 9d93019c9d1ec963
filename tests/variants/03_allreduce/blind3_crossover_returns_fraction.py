# cell: tree_ring_crossover
# loses: test_tree_ring_crossover
# To keep every digit at large n the learner computes in fractions.Fraction and returns the Fraction itself
# (0.0 only on the never-faster path). Breaks "-> float" (a Fraction compares and isclose()s like a number,
# but is not a float; torch.tensor(...) or json of it fail).
from fractions import Fraction
if n < 1:
    raise ValueError(f"n must be at least 1, got n={n}")
rounds = (n - 1).bit_length()
gain = Fraction(n - 1 - rounds)              # start-up latencies the tree saves (x 2 alpha)
loss = Fraction(rounds) - Fraction(n - 1, n)  # extra bytes the tree sends per byte (x 2 beta)
if gain <= 0:
    return 0.0
return Fraction(alpha) * gain / (Fraction(beta) * loss)
