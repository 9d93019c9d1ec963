# cell: transfer_time
# loses: test_transfer_time
# The latency's message says "latency", not the argument's name latency_us.
if not bandwidth_gb_s > 0:
    raise ValueError(f"bandwidth_gb_s must be positive, got {bandwidth_gb_s!r}")
if not nbytes >= 0:
    raise ValueError(f"nbytes must be non-negative, got {nbytes!r}")
if not latency_us >= 0:
    raise ValueError(f"the latency must be non-negative, got {latency_us!r}")
return latency_us * 1e-6 + nbytes / (bandwidth_gb_s * 1e9)
