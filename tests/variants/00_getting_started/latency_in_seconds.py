# cell: transfer_time
# loses: test_transfer_time
if bandwidth_gb_s <= 0:
    raise ValueError(f"bandwidth_gb_s must be positive, got {bandwidth_gb_s}")
return latency_us + nbytes / (bandwidth_gb_s * 1e9)
