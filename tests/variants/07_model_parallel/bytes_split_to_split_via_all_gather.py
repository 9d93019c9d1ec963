# cell: conversion_bytes
# loses: test_conversion_bytes
# Split -> other split priced as an all-gather then a local slice, not an all-to-all.
if world_size < 1:
    raise ValueError(f"world_size must be >= 1, got {world_size}")
(s, s_axis), (d, d_axis) = parse_placement(src), parse_placement(dst)
n = world_size
if (s, s_axis) == (d, d_axis) or s == "B" or d == "P":
    return 0.0
if s == "P":
    return (2.0 if d == "B" else 1.0) * (n - 1) / n * nbytes
return (n - 1) / n * nbytes
