# cell: pipeline_schedule
# loses: test_pipeline_schedule
# The ValueErrors are raised for the right cases but in prose ("a pipeline needs at least one stage",
# "at least one micro-batch", "unknown schedule"): none names the argument (kind / num_stages /
# num_microbatches), breaking "Raise ValueError naming the argument".
if kind not in ("afab", "1f1b"):
    raise ValueError(f"unknown schedule {kind!r}: use 'afab' or '1f1b'")
if num_stages < 1:
    raise ValueError(f"a pipeline needs at least one stage, got {num_stages}")
if num_microbatches < 1:
    raise ValueError(f"a pipeline needs at least one micro-batch, got {num_microbatches}")
p, m = num_stages, num_microbatches
if kind == "afab":
    return [[("F", i) for i in range(m)] + [("B", i) for i in range(m)] for _ in range(p)]
out = []
for s in range(p):
    warmup = min(p - s - 1, m)
    ops = [("F", i) for i in range(warmup)]
    for j in range(m - warmup):
        ops += [("F", warmup + j), ("B", j)]
    ops += [("B", i) for i in range(m - warmup, m)]
    out.append(ops)
return out
