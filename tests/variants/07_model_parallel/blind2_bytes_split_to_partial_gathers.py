# cell: conversion_bytes
# loses: test_conversion_bytes
# Split -> partial priced as an all-gather ((N-1)/N of the bytes): "a partial has the full shape, so every rank
# needs everything". It needs nothing: each rank zero-pads its own piece (local work only, 0.0), so this is
# not the fewest bytes.
if world_size < 1:
    raise ValueError(f"world_size must be at least 1, got {world_size}")
(sk, sa), (dk, da) = parse_placement(src), parse_placement(dst)
n = world_size
if sk == "B" or (sk, sa) == (dk, da):
    return 0.0
if sk == "P":
    return 2 * (n - 1) / n * nbytes if dk == "B" else (n - 1) / n * nbytes
if dk in ("B", "P"):
    return (n - 1) / n * nbytes
return (n - 1) / n**2 * nbytes
