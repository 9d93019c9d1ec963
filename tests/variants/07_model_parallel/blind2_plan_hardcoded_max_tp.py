# cell: best_plan
# loses: test_best_plan
# Ignores the max_tp argument: tp runs up to 8 ("a node has 8 GPUs") whatever max_tp says. Right for the default
# max_tp=8 that every visible case uses; with max_tp=4 (nodes of 4) or max_tp=16 it returns a plan that breaks
# "tp <= max_tp" or misses a faster wider one.
n = cluster["devices"]
best = None
for tp in range(1, min(8, n) + 1):
    for pp in range(1, n // tp + 1):
        if n % (tp * pp) or model["layers"] % pp:
            continue
        dp = n // (tp * pp)
        if model["batch"] % dp:
            continue
        c = plan_cost(model, cluster, dp, tp, pp, microbatches)
        if c["fits"] and (best is None or (c["step"], tp, pp) < best[0]):
            best = ((c["step"], tp, pp), (dp, tp, pp))
if best is None:
    raise ValueError(f"no plan of {n} devices fits in memory")
return best[1]
