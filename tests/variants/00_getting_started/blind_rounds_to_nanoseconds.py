# cell: transfer_time
# loses: test_transfer_time
# Rounds the answer to whole nanoseconds "for a clean number": tiny transfers lose their value.
if not bandwidth_gb_s > 0:
    raise ValueError(f"bandwidth_gb_s must be positive, got {bandwidth_gb_s!r}")
if not nbytes >= 0:
    raise ValueError(f"nbytes must be non-negative, got {nbytes!r}")
if not latency_us >= 0:
    raise ValueError(f"latency_us must be non-negative, got {latency_us!r}")
return round(latency_us * 1e-6 + nbytes / (bandwidth_gb_s * 1e9), 9)
