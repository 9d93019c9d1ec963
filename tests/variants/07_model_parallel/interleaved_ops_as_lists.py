# cell: interleaved_schedule
# loses: test_interleaved_schedule
# operations as lists [op, i, c], not tuples (simulate runs them alike)
for name, val in (("num_stages", num_stages), ("num_microbatches", num_microbatches), ("num_chunks", num_chunks)):
    if val < 1:
        raise ValueError(f"{name} must be at least 1, got {val}")
p, m, v = num_stages, num_microbatches, num_chunks
if m % p:
    raise ValueError(f"num_microbatches ({m}) must be a multiple of num_stages ({p})")
fwd = [("F", r * p + j, c) for r in range(m // p) for c in range(v) for j in range(p)]
bwd = [("B", r * p + j, c) for r in range(m // p) for c in reversed(range(v)) for j in range(p)]
out = []
for s in range(p):
    w = min(len(fwd), (v - 1) * p + p - s - 1)
    ops = fwd[:w]
    f, b = w, 0
    while f < len(fwd):
        ops.append(fwd[f])
        f += 1
        ops.append(bwd[b])
        b += 1
    ops += bwd[b:]
    out.append([list(op) for op in ops])
return out
