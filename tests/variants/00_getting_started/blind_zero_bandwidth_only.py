# cell: transfer_time
# loses: test_transfer_time
# Guards only the division by zero: a negative bandwidth gives a negative time.
import math

if bandwidth_gb_s == 0 or math.isnan(bandwidth_gb_s):
    raise ValueError(f"bandwidth_gb_s must be positive, got {bandwidth_gb_s!r}")
if not nbytes >= 0:
    raise ValueError(f"nbytes must be non-negative, got {nbytes!r}")
if not latency_us >= 0:
    raise ValueError(f"latency_us must be non-negative, got {latency_us!r}")
return latency_us * 1e-6 + nbytes / (bandwidth_gb_s * 1e9)
