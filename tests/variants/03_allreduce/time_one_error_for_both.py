# cell: allreduce_time
# loses: test_allreduce_time
# one check and one message for both arguments: it names algorithm and n whichever is wrong
if algorithm not in ("naive", "tree", "ring") or n < 1:
    raise ValueError(f"algorithm must be 'naive', 'tree' or 'ring' and n >= 1, got algorithm={algorithm!r}, n={n}")
if algorithm == "naive":
    return 2 * (n - 1) * (alpha + nbytes * beta)
if algorithm == "tree":
    return 2 * (n - 1).bit_length() * (alpha + nbytes * beta)
return 2 * (n - 1) * alpha + 2 * (n - 1) / n * nbytes * beta
