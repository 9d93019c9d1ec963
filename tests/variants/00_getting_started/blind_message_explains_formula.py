# cell: transfer_time
# loses: test_transfer_time
# Helpful messages that explain the formula, and so name another argument beside the wrong one.
if not bandwidth_gb_s > 0:
    raise ValueError(f"bandwidth_gb_s must be positive, got {bandwidth_gb_s!r}")
if not nbytes >= 0:
    raise ValueError(f"nbytes must be non-negative (it is divided by bandwidth_gb_s), got {nbytes!r}")
if not latency_us >= 0:
    raise ValueError(f"latency_us must be non-negative, got {latency_us!r}")
return latency_us * 1e-6 + nbytes / (bandwidth_gb_s * 1e9)
