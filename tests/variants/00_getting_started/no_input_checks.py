# cell: transfer_time
# loses: test_transfer_time
return latency_us * 1e-6 + nbytes / (bandwidth_gb_s * 1e9)
