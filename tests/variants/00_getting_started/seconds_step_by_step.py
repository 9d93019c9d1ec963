# cell: transfer_time
# scores: full
# NaN found by 'x != x', units converted one at a time, the sum in the other order.
for name, value, smallest in (("bandwidth_gb_s", bandwidth_gb_s, None), ("nbytes", nbytes, 0),
                              ("latency_us", latency_us, 0)):
    if value != value or (value <= 0 if smallest is None else value < smallest):
        raise ValueError(f"{name} is out of range: {value!r}")
seconds_per_byte = 1 / (bandwidth_gb_s * 10**9)
return nbytes * seconds_per_byte + latency_us / 10**6
