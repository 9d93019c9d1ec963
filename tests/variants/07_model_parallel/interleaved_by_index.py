# cell: interleaved_schedule
# scores: full
# Megatron-LM's index arithmetic: the k-th forward (backward) of a device is micro-batch (k // (p v)) p + k % p through
# chunk (k // p) % v (v - 1 minus that); warm-up v p - s - 1, written as the virtual stages after this device's first.
if min(num_stages, num_microbatches, num_chunks) < 1:
    bad = [n for n, x in (("num_stages", num_stages), ("num_microbatches", num_microbatches),
                          ("num_chunks", num_chunks)) if x < 1]
    raise ValueError(f"{', '.join(bad)} must be at least 1")
if num_microbatches % num_stages != 0:
    raise ValueError("num_microbatches must be a multiple of num_stages")
p, m, v = num_stages, num_microbatches, num_chunks
total = m * v


def op(kind, k):
    chunk = (k // p) % v
    return (kind, (k // (p * v)) * p + k % p, chunk if kind == "F" else v - 1 - chunk)


schedule = []
for s in range(p):
    warmup = min(v * p - s - 1, total)
    ops = [op("F", k) for k in range(warmup)]
    for k in range(total - warmup):
        ops.append(op("F", warmup + k))
        ops.append(op("B", k))
    ops += [op("B", k) for k in range(total - warmup, total)]
    schedule.append(ops)
return schedule
