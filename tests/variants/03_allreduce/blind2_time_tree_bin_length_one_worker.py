# cell: allreduce_time
# loses: test_allreduce_time
# Counts the tree's rounds as the number of binary digits of n - 1 with len(bin(n - 1)) - 2, which is right for
# every n >= 2 but gives 1 round for n = 1 (bin(0) == '0b0'): one worker "sends" for 2 (alpha + nbytes beta).
# Breaks: "With one worker there is nothing to send: 0 seconds" (tree only).
if algorithm not in ("naive", "tree", "ring"):
    raise ValueError(f"unknown algorithm {algorithm!r}: use 'naive', 'tree' or 'ring'")
if n < 1:
    raise ValueError(f"n must be >= 1, got {n}")
if algorithm == "naive":
    return 2 * (n - 1) * (alpha + nbytes * beta)
if algorithm == "tree":
    rounds = len(bin(n - 1)) - 2
    return 2 * rounds * (alpha + nbytes * beta)
return 2 * (n - 1) * (alpha + nbytes / n * beta)
