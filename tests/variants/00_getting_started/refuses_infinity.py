# cell: transfer_time
# loses: test_transfer_time
# Refuses every non-finite argument with math.isfinite: NaN rightly, but an infinite bandwidth
# (the data part takes no time) or an infinite size or latency (it takes forever) are numbers
# the contract accepts.
import math

if not (math.isfinite(bandwidth_gb_s) and bandwidth_gb_s > 0):
    raise ValueError(f"bandwidth_gb_s must be a positive finite number, got {bandwidth_gb_s}")
if not (math.isfinite(nbytes) and nbytes >= 0):
    raise ValueError(f"nbytes must be a non-negative finite number, got {nbytes}")
if not (math.isfinite(latency_us) and latency_us >= 0):
    raise ValueError(f"latency_us must be a non-negative finite number, got {latency_us}")
return latency_us * 1e-6 + nbytes / (bandwidth_gb_s * 1e9)
