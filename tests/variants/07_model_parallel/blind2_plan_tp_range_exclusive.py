# cell: best_plan
# loses: test_best_plan
# Off by one at the tp bound: range(1, max_tp) never tries tp == max_tp, so "tp <= max_tp" becomes tp < max_tp.
# The visible cases' answers have tp 1, 2 or 3, so they pass; a cluster where the full-node tp (8, or max_tp=2
# with an answer of tp 2) is the fastest or the only plan that fits gets a slower plan or a ValueError.
n = cluster["devices"]
best = None
for tp in range(1, min(max_tp, n + 1)):
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
