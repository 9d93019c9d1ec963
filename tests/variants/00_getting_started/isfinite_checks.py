# cell: transfer_time
# scores: full
# A correct alternative: math.isnan first, then the signs.
import math

if math.isnan(bandwidth_gb_s) or bandwidth_gb_s <= 0:
    raise ValueError(f"bandwidth_gb_s must be a positive number, got {bandwidth_gb_s}")
if math.isnan(nbytes) or nbytes < 0:
    raise ValueError(f"nbytes must be a non-negative number, got {nbytes}")
if math.isnan(latency_us) or latency_us < 0:
    raise ValueError(f"latency_us must be a non-negative number, got {latency_us}")
return latency_us * 1e-6 + nbytes / (bandwidth_gb_s * 1e9)
