# cell: transfer_time
# scores: full
for name, value, ok in (("nbytes", nbytes, nbytes >= 0),
                        ("bandwidth_gb_s", bandwidth_gb_s, bandwidth_gb_s > 0),
                        ("latency_us", latency_us, latency_us >= 0)):
    if not ok:
        raise ValueError(f"{name} is out of range: got {value}")
return latency_us / 1e6 + nbytes / bandwidth_gb_s / 1e9
