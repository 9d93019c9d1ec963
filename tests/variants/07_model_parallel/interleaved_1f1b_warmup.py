# cell: interleaved_schedule
# loses: test_interleaved_schedule
# The warm-up of plain 1F1B (p - s - 1 forwards): the first backward of the last chunk needs the forwards of the
# chunks before it, so the devices wait for each other (a deadlock in simulate) as soon as v > 1.
p, m, v = num_stages, num_microbatches, num_chunks
for name, n in (("num_stages", p), ("num_microbatches", m), ("num_chunks", v)):
    if n < 1:
        raise ValueError(f"{name} must be >= 1, got {n}")
if m % p:
    raise ValueError(f"num_microbatches ({m}) must be a multiple of num_stages ({p})")
forwards = [("F", i, c) for r in range(0, m, p) for c in range(v) for i in range(r, r + p)]
backwards = [("B", i, c) for r in range(0, m, p) for c in reversed(range(v)) for i in range(r, r + p)]
devices = []
for s in range(p):
    warmup = min(p - s - 1, len(forwards))
    ops = forwards[:warmup]
    for f, b in zip(forwards[warmup:], backwards):
        ops += [f, b]
    devices.append(ops + backwards[len(forwards) - warmup:])
return devices
