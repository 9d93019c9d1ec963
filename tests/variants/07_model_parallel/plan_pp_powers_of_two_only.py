# cell: best_plan
# loses: test_best_plan
# pipeline degrees only powers of two (tp any divisor): misses pp = 3, 6, .. where layers allow them
n = cluster["devices"]
best = None
for tp in range(1, min(max_tp, n) + 1):
    if n % tp:
        continue
    for pp in [d for d in (1, 2, 4, 8, 16, 32, 64) if d <= n // tp]:
        if (n // tp) % pp or model["layers"] % pp:
            continue
        dp = n // (tp * pp)
        if model["batch"] % dp:
            continue
        cost = plan_cost(model, cluster, dp, tp, pp, microbatches)
        if not cost["fits"]:
            continue
        key = (cost["step"], tp, pp)
        if best is None or key < best[0]:
            best = (key, (dp, tp, pp))
if best is None:
    raise ValueError(f"no plan of {n} devices fits in memory ({cluster['memory']:.3g} bytes each)")
return best[1]
