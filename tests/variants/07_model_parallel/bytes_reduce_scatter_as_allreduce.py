# cell: conversion_bytes
# loses: test_conversion_bytes
# Partial -> split priced as an allreduce followed by a local slice: twice what a reduce-scatter sends.
if world_size < 1:
    raise ValueError(f"world_size must be >= 1, got {world_size}")
(s, s_axis), (d, d_axis) = parse_placement(src), parse_placement(dst)
n = world_size
if (s, s_axis) == (d, d_axis) or s == "B" or d == "P":
    return 0.0
if s == "P":
    return 2.0 * (n - 1) / n * nbytes
if d == "B":
    return (n - 1) / n * nbytes
return (n - 1) / n**2 * nbytes
