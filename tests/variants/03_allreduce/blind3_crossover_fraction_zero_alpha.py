# cell: tree_ring_crossover
# loses: test_tree_ring_crossover
# Exact rational arithmetic (fractions.Fraction) for the closed form, converted to float once at the end; but it
# decides "the tree never wins" from the counts alone: with alpha = 0 the tree's fewer start-ups save nothing, so it
# never wins and the answer is 0.0, where this divides 0 by 0 (alpha = 0, beta = 0) and raises ZeroDivisionError.
from fractions import Fraction
if n < 1:
    raise ValueError(f"n must be at least 1, got n={n}")
rounds, holders = 0, n
while holders > 1:
    holders = (holders + 1) // 2
    rounds += 1
saved = Fraction(n - 1 - rounds)
extra = Fraction(rounds) - Fraction(n - 1, n)
if saved <= 0 or extra <= 0:
    return 0.0
return float(Fraction(alpha) * saved / (Fraction(beta) * extra))
