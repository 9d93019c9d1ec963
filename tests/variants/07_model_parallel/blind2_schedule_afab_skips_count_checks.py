# cell: pipeline_schedule
# loses: test_pipeline_schedule
# The count checks live in the 1F1B branch only ("AFAB is just two loops"): pipeline_schedule("afab", 0, 4)
# returns [] and ("afab", 3, 0) returns three empty lists instead of raising ValueError for fewer than one
# stage or micro-batch.
p, m = num_stages, num_microbatches
if kind == "afab":
    return [[("F", i) for i in range(m)] + [("B", i) for i in range(m)] for _ in range(p)]
if kind != "1f1b":
    raise ValueError(f"kind must be 'afab' or '1f1b', got {kind!r}")
if num_stages < 1:
    raise ValueError(f"num_stages must be at least 1, got {num_stages}")
if num_microbatches < 1:
    raise ValueError(f"num_microbatches must be at least 1, got {num_microbatches}")
out = []
for s in range(p):
    warmup = min(p - s - 1, m)
    ops = [("F", i) for i in range(warmup)]
    for j in range(m - warmup):
        ops += [("F", warmup + j), ("B", j)]
    ops += [("B", i) for i in range(m - warmup, m)]
    out.append(ops)
return out
