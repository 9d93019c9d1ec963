# cell: best_plan
# scores: full
# every triple of divisors, the budget evaluated once per plan (what plan_cost refuses is skipped), ties broken by sorting
import itertools

n = cluster["devices"]
divisors = [d for d in range(1, n + 1) if n % d == 0]
found = []
for dp, tp, pp in itertools.product(divisors, repeat=3):
    if dp * tp * pp != n or tp > max_tp or model["layers"] % pp:
        continue
    try:
        cost = plan_cost(model, cluster, dp, tp, pp, microbatches)
    except ValueError:  # a replica would get part of a sequence
        continue
    if cost["fits"]:
        found.append((cost["step"], tp, pp, dp))
if not found:
    raise ValueError(f"nothing fits in {cluster['memory']:g} bytes of memory per device")
step, tp, pp, dp = sorted(found)[0]
return dp, tp, pp
