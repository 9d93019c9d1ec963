# cell: conversion_bytes
# scores: full
# A table of fractions of nbytes keyed by the kinds of placement, same-axis splits looked up first.
if not isinstance(world_size, int) or world_size < 1:
    raise ValueError(f"world_size: need at least one rank, got {world_size!r}")
if parse_placement(src) == parse_placement(dst):
    return 0.0
n = world_size
fraction = {("P", "B"): 2 * (n - 1) / n, ("P", "S"): (n - 1) / n, ("S", "B"): (n - 1) / n,
            ("S", "S"): (n - 1) / n / n}
return fraction.get((parse_placement(src)[0], parse_placement(dst)[0]), 0.0) * nbytes
