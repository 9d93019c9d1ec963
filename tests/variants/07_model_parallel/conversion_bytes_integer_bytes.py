# cell: conversion_bytes
# loses: test_conversion_bytes
# Counts bytes with integer arithmetic (exact, since nbytes divides by world_size**2) and returns an int, 0 for
# local conversions: right values, breaks "-> float" / "costs 0.0".
if world_size < 1:
    raise ValueError(f"world_size must be at least 1, got {world_size}")
sk, sa = parse_placement(src)
dk, da = parse_placement(dst)
n = world_size
if (sk, sa) == (dk, da) or sk == "B" or (sk == "S" and dk == "P"):
    return 0
if sk == "P":
    return 2 * (n - 1) * nbytes // n if dk == "B" else (n - 1) * nbytes // n
if dk == "B":
    return (n - 1) * nbytes // n
return (n - 1) * nbytes // (n * n)
