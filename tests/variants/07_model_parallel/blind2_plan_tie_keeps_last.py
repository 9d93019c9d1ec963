# cell: best_plan
# loses: test_best_plan
# Tie-break by iteration order: "if c['step'] <= best_step" keeps the LAST of equally fast plans, and tp runs
# upward, so ties go to the larger tp (then larger pp), not the smaller tp, then smaller pp as promised. Invisible
# with realistic clusters (steps almost never tie); a cluster where communication is free (alpha = 0,
# bandwidth = inf) makes every pp = 1 plan tie: it returns (1, 8, 1) for llama7b on 8 x 80 GB where (4, 2, 1) is due
# (and with ZeRO-3, where (8, 1, 1) is due).
n = cluster["devices"]
best, best_step = None, None
for tp in range(1, min(max_tp, n) + 1):
    for pp in range(1, n // tp + 1):
        if n % (tp * pp) or model["layers"] % pp:
            continue
        dp = n // (tp * pp)
        if model["batch"] % dp:
            continue
        c = plan_cost(model, cluster, dp, tp, pp, microbatches)
        if c["fits"] and (best is None or c["step"] <= best_step):
            best, best_step = (dp, tp, pp), c["step"]
if best is None:
    raise ValueError(f"no plan of {n} devices fits in memory")
return best
