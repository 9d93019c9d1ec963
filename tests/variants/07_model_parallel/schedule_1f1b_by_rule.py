# cell: pipeline_schedule
# scores: full
# 1F1B written as its rule: run a forward while fewer than p - s activations are held, else the oldest backward.
if kind not in {"afab", "1f1b"}:
    raise ValueError(f"unknown kind {kind!r}: use 'afab' or '1f1b'")
if num_stages < 1:
    raise ValueError(f"num_stages must be >= 1, got {num_stages}")
if num_microbatches < 1:
    raise ValueError(f"num_microbatches must be >= 1, got {num_microbatches}")
p, m = num_stages, num_microbatches
limit = (lambda s: m) if kind == "afab" else (lambda s: p - s)
stages = []
for s in range(p):
    ops, forwards, backwards = [], 0, 0
    while backwards < m:
        if forwards < m and forwards - backwards < limit(s):
            ops.append(("F", forwards))
            forwards += 1
        else:
            ops.append(("B", backwards))
            backwards += 1
    stages.append(ops)
return stages
