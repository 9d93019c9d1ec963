# cell: interleaved_schedule
# loses: test_interleaved_schedule
# The warm-up one forward too long (v p - s instead of the shortest that keeps the step): the step is as short, but
# every device holds one more chunk's activations for nothing.
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
    warmup = min((v - 1) * p + p - s, len(forwards))
    ops = forwards[:warmup]
    for f, b in zip(forwards[warmup:], backwards):
        ops += [f, b]
    devices.append(ops + backwards[len(forwards) - warmup:])
return devices
