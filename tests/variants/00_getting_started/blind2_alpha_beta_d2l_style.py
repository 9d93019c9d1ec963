# cell: transfer_time
# region: 1
# scores: full
# Correct, d2l alpha-beta style with one validation helper: a non-number, NaN or out-of-range value
# raises ValueError naming only that argument; alpha in seconds plus bytes over bytes-per-second
# (division, not multiplication by 1/bandwidth, so no 0 * inf); returns a float; inf is accepted.
import numbers


def check(name, value, allow_zero):
    ok = isinstance(value, numbers.Real) and value == value and (value >= 0 if allow_zero else value > 0)
    if not ok:
        kind = "a non-negative" if allow_zero else "a positive"
        raise ValueError(f"{name} must be {kind} number, got {value!r}")


check("nbytes", nbytes, allow_zero=True)
check("bandwidth_gb_s", bandwidth_gb_s, allow_zero=False)
check("latency_us", latency_us, allow_zero=True)
alpha_s = latency_us / 1e6
bytes_per_s = bandwidth_gb_s * 1e9
return float(alpha_s + nbytes / bytes_per_s)
