# cell: transfer_time
# region: 1
# loses: test_transfer_time
# Coerces every argument with float() before checking: the string "100" is silently accepted as a
# number, float("fast") raises a ValueError whose message names no argument, and float(None)
# raises TypeError. Breaks "ValueError unless ... a number" and "its message names the argument".
import math

nbytes, bandwidth_gb_s, latency_us = float(nbytes), float(bandwidth_gb_s), float(latency_us)
if math.isnan(bandwidth_gb_s) or bandwidth_gb_s <= 0:
    raise ValueError(f"bandwidth_gb_s must be positive, got {bandwidth_gb_s}")
if math.isnan(nbytes) or nbytes < 0:
    raise ValueError(f"nbytes must be non-negative, got {nbytes}")
if math.isnan(latency_us) or latency_us < 0:
    raise ValueError(f"latency_us must be non-negative, got {latency_us}")
return latency_us * 1e-6 + nbytes / (bandwidth_gb_s * 1e9)
