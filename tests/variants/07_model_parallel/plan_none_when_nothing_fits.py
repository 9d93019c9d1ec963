# cell: best_plan
# loses: test_best_plan
# returns None when no plan fits, instead of saying why
n = cluster["devices"]
plans = [(dp, tp, n // (dp * tp)) for tp in range(1, min(n, max_tp) + 1) if n % tp == 0
         for dp in range(1, n // tp + 1) if (n // tp) % dp == 0]
plans = [p for p in plans if model["layers"] % p[2] == 0 and model["batch"] % p[0] == 0 and plan_cost(model, cluster, *p, microbatches)["fits"]]
if not plans:
    return None
return min(plans, key=lambda p: (plan_cost(model, cluster, *p, microbatches)["step"], p[1], p[2]))
