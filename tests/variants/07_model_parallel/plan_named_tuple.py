# cell: best_plan
# loses: test_best_plan
# returns a namedtuple Plan(dp, tp, pp): the contract asks for a plain tuple (only plain data crosses from the learner's kernel to the grader)
from collections import namedtuple

Plan = namedtuple("Plan", "dp tp pp")
n = cluster["devices"]
best = None
for tp in range(1, min(max_tp, n) + 1):
    for pp in range(1, n // tp + 1):
        if n % (tp * pp) or model["layers"] % pp or model["batch"] % (n // (tp * pp)):
            continue
        cost = plan_cost(model, cluster, n // (tp * pp), tp, pp, microbatches)
        if cost["fits"] and (best is None or (cost["step"], tp, pp) < best[0]):
            best = ((cost["step"], tp, pp), Plan(n // (tp * pp), tp, pp))
if best is None:
    raise ValueError("no plan fits in memory")
return best[1]
