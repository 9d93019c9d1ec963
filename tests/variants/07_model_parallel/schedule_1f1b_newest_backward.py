# cell: pipeline_schedule
# loses: test_pipeline_schedule
# The steady state runs the newest pending backward instead of the oldest (a stack, not a queue).
p, m = num_stages, num_microbatches
if kind not in ("afab", "1f1b"):
    raise ValueError(f"kind must be 'afab' or '1f1b', got {kind!r}")
if p < 1 or m < 1:
    raise ValueError(f"num_stages and num_microbatches must be >= 1, got {p} and {m}")
if kind == "afab":
    return [[("F", i) for i in range(m)] + [("B", i) for i in range(m)] for _ in range(p)]
stages = []
for s in range(p):
    ops, pending = [], []
    for i in range(m):
        ops.append(("F", i))
        pending.append(i)
        if len(pending) >= p - s:
            ops.append(("B", pending.pop()))
    stages.append(ops + [("B", i) for i in reversed(pending)])
return stages
