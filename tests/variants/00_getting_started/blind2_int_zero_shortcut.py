# cell: transfer_time
# region: 1
# loses: test_transfer_time
# Shortcut "nothing to send and no latency costs nothing" returns the int 0, not 0.0.
# Breaks "The answer is a Python float" for transfer_time(0, bw, 0).
import numbers

if not (isinstance(bandwidth_gb_s, numbers.Real) and bandwidth_gb_s > 0):
    raise ValueError(f"bandwidth_gb_s must be a positive number, got {bandwidth_gb_s!r}")
if not (isinstance(nbytes, numbers.Real) and nbytes >= 0):
    raise ValueError(f"nbytes must be a non-negative number, got {nbytes!r}")
if not (isinstance(latency_us, numbers.Real) and latency_us >= 0):
    raise ValueError(f"latency_us must be a non-negative number, got {latency_us!r}")
if nbytes == 0 and latency_us == 0:
    return 0
return latency_us * 1e-6 + nbytes / (bandwidth_gb_s * 1e9)
