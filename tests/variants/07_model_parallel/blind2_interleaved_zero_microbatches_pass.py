# cell: interleaved_schedule
# loses: test_interleaved_schedule
# Checks num_stages and num_chunks >= 1 and that num_microbatches is a multiple of num_stages, but not that it
# is at least one: 0 is a multiple of every p, so interleaved_schedule(2, 0, 2) returns [[], []] instead of
# raising ValueError naming num_microbatches (and a negative multiple, -2, also slips through).
p, m, v = num_stages, num_microbatches, num_chunks
if p < 1:
    raise ValueError(f"num_stages must be at least 1, got {p}")
if v < 1:
    raise ValueError(f"num_chunks must be at least 1, got {v}")
if m % p:
    raise ValueError(f"num_microbatches ({m}) must be a multiple of num_stages ({p})")
fwd = [("F", i, c) for r in range(m // p) for c in range(v) for i in range(r * p, r * p + p)]
bwd = [("B", i, c) for r in range(m // p) for c in reversed(range(v)) for i in range(r * p, r * p + p)]
out = []
for s in range(p):
    warmup = min((v - 1) * p + (p - s - 1), m * v)
    ops = fwd[:warmup]
    for j in range(m * v - warmup):
        ops += [fwd[warmup + j], bwd[j]]
    ops += bwd[m * v - warmup:]
    out.append(ops)
return out
