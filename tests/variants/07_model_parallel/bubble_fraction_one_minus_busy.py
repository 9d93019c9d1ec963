# cell: bubble_fraction
# scores: full
# Correct, another style: each stage is busy m(t_f + t_b) out of a step of (m + p - 1)(t_f + t_b), the first
# micro-batch's trip down and back adding (p - 1)(t_f + t_b); the idle fraction is one minus the busy share.
from fractions import Fraction

busy_share = Fraction(num_microbatches, num_microbatches + num_stages - 1)
return float(1 - busy_share)
