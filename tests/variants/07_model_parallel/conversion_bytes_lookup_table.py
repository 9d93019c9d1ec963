# cell: conversion_bytes
# scores: full
# Correct, another style: a table of the fraction of nbytes each kind of pair costs, keyed by kinds, with the
# split-to-split case resolved by comparing axes.
if not world_size >= 1:
    raise ValueError(f"world_size = {world_size!r}: need at least 1 rank")
(sk, sa), (dk, da) = parse_placement(src), parse_placement(dst)
n = world_size
ring = (n - 1) / n
fraction = {("P", "B"): 2 * ring, ("P", "S"): ring, ("S", "B"): ring,
            ("S", "S"): 0.0 if sa == da else ring / n}.get((sk, dk), 0.0)
return float(fraction * nbytes)
