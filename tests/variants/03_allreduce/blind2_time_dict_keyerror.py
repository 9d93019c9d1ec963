# cell: allreduce_time
# loses: test_allreduce_time
# Formulas right, n checked, but the algorithm is looked up in a dict: an unknown name raises KeyError, not
# ValueError.
# Breaks: "Raise ValueError naming the argument for an unknown algorithm".
if n < 1:
    raise ValueError(f"n must be at least 1, got {n}")
rounds = (n - 1).bit_length()
plans = {
    "naive": lambda: 2 * (n - 1) * (alpha + nbytes * beta),
    "tree": lambda: 2 * rounds * (alpha + nbytes * beta),
    "ring": lambda: 2 * (n - 1) * (alpha + nbytes / n * beta),
}
return plans[algorithm]()
