# cell: best_plan
# loses: test_best_plan
# tries only powers of two for dp, tp and pp, as on most GPU nodes
n = cluster["devices"]
twos = [2 ** k for k in range(n.bit_length())]
plans = [(dp, tp, pp) for dp in twos for tp in twos for pp in twos
         if dp * tp * pp == n and tp <= max_tp and model["layers"] % pp == 0 and model["batch"] % dp == 0
         and plan_cost(model, cluster, dp, tp, pp, microbatches)["fits"]]
if not plans:
    raise ValueError("no plan fits in memory")
return min(plans, key=lambda p: (plan_cost(model, cluster, *p, microbatches)["step"], p[1], p[2]))
