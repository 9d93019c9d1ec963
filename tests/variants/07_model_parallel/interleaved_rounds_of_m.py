# cell: interleaved_schedule
# loses: test_interleaved_schedule
# Rounds of all m micro-batches (every micro-batch through chunk 0, then through chunk 1, ...) instead of rounds of p:
# the warm-up is too short for rounds that long (a deadlock as soon as m > p).
p, m, v = num_stages, num_microbatches, num_chunks
for name, n in (("num_stages", p), ("num_microbatches", m), ("num_chunks", v)):
    if n < 1:
        raise ValueError(f"{name} must be >= 1, got {n}")
if m % p:
    raise ValueError(f"num_microbatches ({m}) must be a multiple of num_stages ({p})")
forwards = [("F", i, c) for c in range(v) for i in range(m)]
backwards = [("B", i, c) for c in reversed(range(v)) for i in range(m)]
devices = []
for s in range(p):
    warmup = min((v - 1) * p + p - s - 1, len(forwards))
    ops = forwards[:warmup]
    for f, b in zip(forwards[warmup:], backwards):
        ops += [f, b]
    devices.append(ops + backwards[len(forwards) - warmup:])
return devices
