# cell: interleaved_schedule
# loses: test_interleaved_schedule
# Depth-first: each micro-batch through all its chunks before the next (no rounds of p), with 1F1B's warm-up plus v - 1:
# the devices wait on each other's chunks (a deadlock or a longer step).
p, m, v = num_stages, num_microbatches, num_chunks
for name, n in (("num_stages", p), ("num_microbatches", m), ("num_chunks", v)):
    if n < 1:
        raise ValueError(f"{name} must be >= 1, got {n}")
if m % p:
    raise ValueError(f"num_microbatches ({m}) must be a multiple of num_stages ({p})")
forwards = [("F", i, c) for i in range(m) for c in range(v)]
backwards = [("B", i, c) for i in range(m) for c in reversed(range(v))]
devices = []
for s in range(p):
    warmup = min(v * (p - s - 1) + v - 1, len(forwards))
    ops = forwards[:warmup]
    for f, b in zip(forwards[warmup:], backwards):
        ops += [f, b]
    devices.append(ops + backwards[len(forwards) - warmup:])
return devices
