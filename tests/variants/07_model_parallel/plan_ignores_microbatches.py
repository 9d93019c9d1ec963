# cell: best_plan
# loses: test_best_plan
# the microbatches argument ignored: plan_cost always asked with 32
n = cluster["devices"]
best = None
for tp in range(1, min(max_tp, n) + 1):
    if n % tp:
        continue
    for pp in range(1, n // tp + 1):
        if (n // tp) % pp or model["layers"] % pp:
            continue
        dp = n // (tp * pp)
        if model["batch"] % dp:
            continue
        cost = plan_cost(model, cluster, dp, tp, pp, 32)
        if not cost["fits"]:
            continue
        key = (cost["step"], tp, pp)
        if best is None or key < best[0]:
            best = (key, (dp, tp, pp))
if best is None:
    raise ValueError(f"no plan of {n} devices fits in memory ({cluster['memory']:.3g} bytes each)")
return best[1]
