# cell: allreduce_time
# scores: full
# Each plan written as (messages one after another) x alpha + (bytes through the busiest link) x beta.
if n < 1:
    raise ValueError(f"n: need at least one worker, got {n}")
if algorithm not in ("naive", "tree", "ring"):
    raise ValueError(f"algorithm {algorithm!r} is not one of naive, tree, ring")
if algorithm == "ring":
    steps, per_step = 2 * (n - 1), nbytes / n
elif algorithm == "tree":
    steps, per_step = 2 * math.ceil(math.log2(n)), nbytes
else:
    steps, per_step = 2 * (n - 1), nbytes
return float(steps * alpha + steps * per_step * beta)
