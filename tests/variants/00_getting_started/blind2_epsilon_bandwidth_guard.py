# cell: transfer_time
# region: 1
# loses: test_transfer_time
# Guards the division with an epsilon: bandwidths below 1e-12 GB/s are refused as "zero". Breaks
# "Raise ValueError unless the bandwidth is a positive number": 1e-15 GB/s is positive and valid
# (the transfer just takes very long).
import math
import numbers

if not isinstance(bandwidth_gb_s, numbers.Real) or math.isnan(bandwidth_gb_s) or bandwidth_gb_s < 1e-12:
    raise ValueError(f"bandwidth_gb_s must be positive, got {bandwidth_gb_s!r}")
if not isinstance(nbytes, numbers.Real) or math.isnan(nbytes) or nbytes < 0:
    raise ValueError(f"nbytes must be non-negative, got {nbytes!r}")
if not isinstance(latency_us, numbers.Real) or math.isnan(latency_us) or latency_us < 0:
    raise ValueError(f"latency_us must be non-negative, got {latency_us!r}")
return float(latency_us * 1e-6 + nbytes / (bandwidth_gb_s * 1e9))
