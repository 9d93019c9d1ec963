# cell: transfer_time
# loses: test_transfer_time
# Bytes come in whole numbers, so it refuses any size that is not an int: a size given as a
# float (1.5e9 bytes) is a number the contract accepts.
if not bandwidth_gb_s > 0:
    raise ValueError(f"bandwidth_gb_s must be positive, got {bandwidth_gb_s}")
if not isinstance(nbytes, int) or nbytes < 0:
    raise ValueError(f"nbytes must be a non-negative int, got {nbytes!r}")
if not latency_us >= 0:
    raise ValueError(f"latency_us must not be negative, got {latency_us}")
return latency_us * 1e-6 + nbytes / (bandwidth_gb_s * 1e9)
