# cell: pipeline_schedule
# loses: test_pipeline_schedule
# Megatron's warm-up p - s - 1 without min(..., m): right whenever m >= p - 1 (the visible 3 stages x 4
# micro-batches), but with fewer micro-batches than the pipe is deep stage s "warms up" with forwards of
# micro-batches that do not exist (F 2 with m = 2) and drains backwards of negative index: not every forward
# and backward once, of micro-batches 0..m-1.
if kind not in ("afab", "1f1b"):
    raise ValueError(f"kind must be 'afab' or '1f1b', got {kind!r}")
if num_stages < 1:
    raise ValueError(f"num_stages must be at least 1, got {num_stages}")
if num_microbatches < 1:
    raise ValueError(f"num_microbatches must be at least 1, got {num_microbatches}")
p, m = num_stages, num_microbatches
if kind == "afab":
    return [[("F", i) for i in range(m)] + [("B", i) for i in range(m)] for _ in range(p)]
out = []
for s in range(p):
    warmup = p - s - 1
    ops = [("F", i) for i in range(warmup)]
    for j in range(m - warmup):
        ops += [("F", warmup + j), ("B", j)]
    ops += [("B", i) for i in range(m - warmup, m)]
    out.append(ops)
return out
