# cell: transfer_time
# loses: test_transfer_time
# demands float bandwidth and latency (transfer_time(100, 10, 1) raises ValueError); breaks "Any Python number is an argument, int or float"
if not isinstance(bandwidth_gb_s, float) or not bandwidth_gb_s > 0:
    raise ValueError(f"bandwidth_gb_s must be a positive float, got {bandwidth_gb_s!r}")
if not nbytes >= 0:
    raise ValueError(f"nbytes must be a non-negative number, got {nbytes!r}")
if not isinstance(latency_us, float) or not latency_us >= 0:
    raise ValueError(f"latency_us must be a non-negative float, got {latency_us!r}")
return latency_us * 1e-6 + nbytes / (bandwidth_gb_s * 1e9)
