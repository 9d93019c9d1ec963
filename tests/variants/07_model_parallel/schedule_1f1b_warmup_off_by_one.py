# cell: pipeline_schedule
# loses: test_pipeline_schedule
# Warm-up of p - s forwards instead of p - s - 1: one more activation held per stage, and the last stage waits.
p, m = num_stages, num_microbatches
if kind not in ("afab", "1f1b"):
    raise ValueError(f"kind must be 'afab' or '1f1b', got {kind!r}")
if p < 1 or m < 1:
    raise ValueError(f"num_stages and num_microbatches must be >= 1, got {p} and {m}")
if kind == "afab":
    return [[("F", i) for i in range(m)] + [("B", i) for i in range(m)] for _ in range(p)]
stages = []
for s in range(p):
    warmup = min(p - s, m)
    ops = [("F", i) for i in range(warmup)]
    for i in range(m - warmup):
        ops += [("F", warmup + i), ("B", i)]
    stages.append(ops + [("B", i) for i in range(m - warmup, m)])
return stages
