# cell: allreduce_time
# scores: full
# Another style: validate first (each error names its argument), count the tree's rounds by halving the number of
# holders with rounding up in integers, then one (messages, bytes per message) table for the three plans.
if algorithm not in {"naive", "tree", "ring"}:
    raise ValueError(f"algorithm must be one of 'naive', 'tree', 'ring', not {algorithm!r}")
if n < 1:
    raise ValueError(f"n must be at least 1 worker, got n={n}")
if n == 1:
    return 0.0
rounds, holders = 0, n
while holders > 1:
    holders = -(-holders // 2)
    rounds += 1
messages, size = {
    "naive": (2 * (n - 1), nbytes),
    "tree": (2 * rounds, nbytes),
    "ring": (2 * (n - 1), nbytes / n),
}[algorithm]
return float(messages * (alpha + size * beta))
