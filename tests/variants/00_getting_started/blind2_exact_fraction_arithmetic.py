# cell: transfer_time
# region: 1
# loses: test_transfer_time
# Validates correctly, then computes exactly with fractions.Fraction and rounds once: Fraction(inf)
# raises OverflowError, so an infinite bandwidth, size or latency crashes. Breaks "infinity is a
# number too (an infinitely fast link moves the data in no time; an endless message takes forever)".
import math
import numbers
from fractions import Fraction

if not isinstance(bandwidth_gb_s, numbers.Real) or math.isnan(bandwidth_gb_s) or bandwidth_gb_s <= 0:
    raise ValueError(f"bandwidth_gb_s must be positive, got {bandwidth_gb_s!r}")
if not isinstance(nbytes, numbers.Real) or math.isnan(nbytes) or nbytes < 0:
    raise ValueError(f"nbytes must be non-negative, got {nbytes!r}")
if not isinstance(latency_us, numbers.Real) or math.isnan(latency_us) or latency_us < 0:
    raise ValueError(f"latency_us must be non-negative, got {latency_us!r}")
seconds = Fraction(latency_us) / 10**6 + Fraction(nbytes) / (Fraction(bandwidth_gb_s) * 10**9)
return float(seconds)
