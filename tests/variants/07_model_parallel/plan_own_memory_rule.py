# cell: best_plan
# loses: test_best_plan
# decides what fits by DDP's 16 bytes per parameter over tp * pp, forgetting ZeRO's sharding and the activations
n = cluster["devices"]
plans = [(dp, tp, n // (dp * tp)) for tp in range(1, min(n, max_tp) + 1) if n % tp == 0
         for dp in range(1, n // tp + 1) if (n // tp) % dp == 0]
plans = [p for p in plans if model["layers"] % p[2] == 0 and model["batch"] % p[0] == 0
         and 16 * model["params"] / (p[1] * p[2]) <= cluster["memory"]]
if not plans:
    raise ValueError("no plan fits in memory")
return min(plans, key=lambda p: (plan_cost(model, cluster, *p, microbatches)["step"], p[1], p[2]))
