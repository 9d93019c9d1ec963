# cell: transfer_time
# loses: test_transfer_time
if bandwidth_gb_s <= 0 or nbytes < 0 or latency_us < 0:
    raise ValueError(f"need nbytes >= 0, bandwidth_gb_s > 0 and latency_us >= 0, "
                     f"got {nbytes}, {bandwidth_gb_s}, {latency_us}")
return latency_us * 1e-6 + nbytes / (bandwidth_gb_s * 1e9)
