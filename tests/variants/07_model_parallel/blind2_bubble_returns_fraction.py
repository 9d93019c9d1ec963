# cell: bubble_fraction
# loses: test_bubble_fraction
# Exact arithmetic: returns fractions.Fraction(p - 1, m + p - 1). The value is right (and close-checks that
# call float() or subtract from a float pass), but the promise is "-> float": isinstance(..., float) fails,
# json.dumps and f"{x:.3f}" formatting with some callers break, and torch.tensor(Fraction) raises.
from fractions import Fraction

return Fraction(num_stages - 1, num_microbatches + num_stages - 1)
