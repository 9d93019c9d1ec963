# cell: best_plan
# scores: full
# Correct, declarative style: every factorisation (dp, tp, pp) of the device count from itertools.product over
# divisors, filtered by the five rules, plan_cost called once per candidate, min() with the key
# (step, tp, pp); ValueError naming memory when the filtered list is empty.
from itertools import product

n = cluster["devices"]
divisors = [d for d in range(1, n + 1) if n % d == 0]
candidates = [(n // (tp * pp), tp, pp) for tp, pp in product(divisors, divisors)
              if n % (tp * pp) == 0 and tp <= max_tp and model["layers"] % pp == 0
              and model["batch"] % (n // (tp * pp)) == 0]
costs = {plan: plan_cost(model, cluster, *plan, microbatches) for plan in candidates}
fitting = [plan for plan in candidates if costs[plan]["fits"]]
if not fitting:
    raise ValueError(f"no plan of {n} devices fits in their memory of {cluster['memory']:g} bytes each")
return min(fitting, key=lambda plan: (costs[plan]["step"], plan[1], plan[2]))
