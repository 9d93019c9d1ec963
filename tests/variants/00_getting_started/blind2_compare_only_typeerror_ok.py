# cell: transfer_time
# region: 1
# scores: full
# Correct: refuses NaN and the ranges with ValueError naming the argument, through comparisons alone, so a
# non-number ("100", None) raises TypeError from the comparison, which the contract allows.
if not bandwidth_gb_s > 0:
    raise ValueError(f"bandwidth_gb_s must be a positive number, got {bandwidth_gb_s!r}")
if not nbytes >= 0:
    raise ValueError(f"nbytes must be a non-negative number, got {nbytes!r}")
if not latency_us >= 0:
    raise ValueError(f"latency_us must be a non-negative number, got {latency_us!r}")
return latency_us * 1e-6 + nbytes / (bandwidth_gb_s * 1e9)
