# cell: best_plan
# scores: full
# Correct, another style: every (tp, pp) pair of divisors of the device count, plan_cost's own ValueError to skip
# a dp that does not divide the batch, and min over (step, tp, pp) for the tie-breaks.
import itertools

devices = cluster["devices"]
divisors = [d for d in range(1, devices + 1) if devices % d == 0]
fitting = []
for tp, pp in itertools.product(divisors, divisors):
    if devices % (tp * pp) or tp > max_tp or model["layers"] % pp:
        continue
    dp = devices // (tp * pp)
    try:
        cost = plan_cost(model, cluster, dp, tp, pp, microbatches)
    except ValueError:  # dp does not divide the batch: a replica needs whole sequences
        continue
    if cost["fits"]:
        fitting.append((cost["step"], tp, pp, dp))
if not fitting:
    raise ValueError(f"memory: no way of dividing {devices} devices of {cluster['memory']:.3g} bytes fits the model")
_, tp, pp, dp = min(fitting)
return (int(dp), int(tp), int(pp))
