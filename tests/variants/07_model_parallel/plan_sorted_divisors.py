# cell: best_plan
# scores: full
# divisors first, every valid plan costed, sorted on (step, tp, pp); the error reports the least memory any plan needs
def divisors(k):
    return [d for d in range(1, k + 1) if k % d == 0]


total = int(cluster["devices"])
costed, need = [], []
for tp in divisors(total):
    if tp > max_tp:
        break
    for pp in divisors(total // tp):
        dp = total // tp // pp
        if model["layers"] % pp != 0 or model["batch"] % dp != 0:
            continue
        c = plan_cost(model, cluster, dp, tp, pp, microbatches=microbatches)
        need.append(c["state"] + c["activations"])
        if c["fits"]:
            costed.append((c["step"], tp, pp, dp))
if not costed:
    least = f" (the least any plan needs is {min(need) / 1e9:.1f} GB)" if need else ""
    raise ValueError(f"no plan fits in the devices' memory{least}")
costed.sort()
step, tp, pp, dp = costed[0]
return (int(dp), int(tp), int(pp))
