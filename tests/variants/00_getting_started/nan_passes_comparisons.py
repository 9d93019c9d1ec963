# cell: transfer_time
# loses: test_transfer_time
# Checks with '<= 0' and '< 0': every comparison with NaN is false, so NaN passes and comes back NaN.
if bandwidth_gb_s <= 0:
    raise ValueError(f"bandwidth_gb_s must be positive, got {bandwidth_gb_s}")
if nbytes < 0:
    raise ValueError(f"nbytes must not be negative, got {nbytes}")
if latency_us < 0:
    raise ValueError(f"latency_us must not be negative, got {latency_us}")
return latency_us * 1e-6 + nbytes / (bandwidth_gb_s * 1e9)
