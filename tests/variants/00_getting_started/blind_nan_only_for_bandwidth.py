# cell: transfer_time
# loses: test_transfer_time
# NaN refused for the bandwidth (not > 0), but the size and latency are checked with `< 0`,
# which NaN passes.
if not bandwidth_gb_s > 0:
    raise ValueError(f"bandwidth_gb_s must be positive, got {bandwidth_gb_s!r}")
if nbytes < 0:
    raise ValueError(f"nbytes must be non-negative, got {nbytes!r}")
if latency_us < 0:
    raise ValueError(f"latency_us must be non-negative, got {latency_us!r}")
return latency_us * 1e-6 + nbytes / (bandwidth_gb_s * 1e9)
