# cell: transfer_time
# loses: test_transfer_time
# Counts the latency in whole microseconds (int(latency_us)): 2.5 us becomes 2 us, and an
# infinite latency raises OverflowError instead of giving an infinite time.
if not bandwidth_gb_s > 0:
    raise ValueError(f"bandwidth_gb_s must be positive, got {bandwidth_gb_s}")
if not nbytes >= 0:
    raise ValueError(f"nbytes must not be negative, got {nbytes}")
if not latency_us >= 0:
    raise ValueError(f"latency_us must not be negative, got {latency_us}")
return int(latency_us) / 1_000_000 + nbytes / (bandwidth_gb_s * 1e9)
