# cell: interleaved_schedule
# loses: test_interleaved_schedule
# No divisibility check: micro-batches that are not a multiple of the devices run a short last round instead of a
# ValueError naming num_microbatches.
p, m, v = num_stages, num_microbatches, num_chunks
for name, n in (("num_stages", p), ("num_microbatches", m), ("num_chunks", v)):
    if n < 1:
        raise ValueError(f"{name} must be >= 1, got {n}")
forwards = [("F", i, c) for r in range(0, m, p) for c in range(v) for i in range(r, min(r + p, m))]
backwards = [("B", i, c) for r in range(0, m, p) for c in reversed(range(v)) for i in range(r, min(r + p, m))]
devices = []
for s in range(p):
    warmup = min((v - 1) * p + p - s - 1, len(forwards))
    ops = forwards[:warmup]
    for f, b in zip(forwards[warmup:], backwards):
        ops += [f, b]
    devices.append(ops + backwards[len(forwards) - warmup:])
return devices
