# cell: transfer_time
# region: 1
# scores: full
# Correct, EAFP style: each argument must compare as a number (a TypeError from comparing a string,
# None or complex is turned into the ValueError), and "not (x >= 0)" also refuses NaN; the message
# names only the argument at fault. Bytes per second first, then latency converted and added.
for name, value in (("bandwidth_gb_s", bandwidth_gb_s), ("nbytes", nbytes), ("latency_us", latency_us)):
    try:
        ok = value > 0 if name == "bandwidth_gb_s" else value >= 0
    except TypeError:
        ok = False
    if isinstance(value, (str, bytes)) or not ok:
        raise ValueError(f"{name} is not a valid {'positive' if name == 'bandwidth_gb_s' else 'non-negative'} "
                         f"number: {value!r}")
data_s = nbytes / (bandwidth_gb_s * 10**9)
return float(data_s + latency_us * 10**-6)
