# cell: allreduce_time
# scores: full
# Correct, another style: the tree's rounds counted by simulating the halving (holders -> ceil(holders / 2)) as the
# markdown describes, instead of a logarithm; exact for any n, float results, both errors name their argument.
if algorithm not in {"naive", "tree", "ring"}:
    raise ValueError(f"unknown algorithm {algorithm!r}: expected 'naive', 'tree' or 'ring'")
if n < 1:
    raise ValueError(f"n must be at least 1, got n={n}")
message = alpha + nbytes * beta
if algorithm == "naive":
    return float(2 * (n - 1) * message)
if algorithm == "tree":
    rounds, holders = 0, n
    while holders > 1:
        holders = (holders + 1) // 2
        rounds += 1
    return float(2 * rounds * message)
return float(2 * (n - 1) * (alpha + nbytes / n * beta))
