# cell: interleaved_schedule
# scores: full
# Interleaved 1F1B written as its rule: run the next forward while device s holds fewer than v p - s chunks'
# activations (all it needs before its first backward can arrive), else the next backward.
p, m, v = num_stages, num_microbatches, num_chunks
if p < 1:
    raise ValueError(f"num_stages must be >= 1, got {p}")
if m < 1 or m % p:
    raise ValueError(f"num_microbatches must be a positive multiple of num_stages ({p}), got {m}")
if v < 1:
    raise ValueError(f"num_chunks must be >= 1, got {v}")
order = []
for first in range(0, m, p):
    order += [(i, c) for c in range(v) for i in range(first, first + p)]
back = []
for first in range(0, m, p):
    back += [(i, c) for c in range(v - 1, -1, -1) for i in range(first, first + p)]
devices = []
for s in range(p):
    ops, nf, nb = [], 0, 0
    while nb < len(back):
        if nf < len(order) and nf - nb < v * p - s:
            ops.append(("F",) + order[nf])
            nf += 1
        else:
            ops.append(("B",) + back[nb])
            nb += 1
    devices.append(ops)
return devices
