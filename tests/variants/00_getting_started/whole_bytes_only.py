# cell: transfer_time
# loses: test_transfer_time
# Sends whole bytes only: a size given as a float is rounded down first (math.floor), so
# 2.5 bytes cost what 2 bytes cost.
if not bandwidth_gb_s > 0:
    raise ValueError(f"bandwidth_gb_s must be positive, got {bandwidth_gb_s}")
if not nbytes >= 0:
    raise ValueError(f"nbytes must not be negative, got {nbytes}")
if not latency_us >= 0:
    raise ValueError(f"latency_us must not be negative, got {latency_us}")
import math

if nbytes != math.inf:
    nbytes = math.floor(nbytes)
return latency_us * 1e-6 + nbytes / (bandwidth_gb_s * 1e9)
