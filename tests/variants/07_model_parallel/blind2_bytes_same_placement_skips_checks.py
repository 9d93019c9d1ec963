# cell: conversion_bytes
# loses: test_conversion_bytes
# A same-placement shortcut taken before any validation: conversion_bytes("B", "B", n, 0) and
# conversion_bytes("Q", "Q", n, 4) return 0.0 instead of raising ValueError (the world_size < 1 and
# parse_placement promises hold only when src != dst).
if src == dst:
    return 0.0
if world_size < 1:
    raise ValueError(f"world_size must be at least 1, got {world_size}")
(sk, sa), (dk, da) = parse_placement(src), parse_placement(dst)
n = world_size
if sk == "B" or (sk, sa) == (dk, da) or (sk == "S" and dk == "P"):
    return 0.0
if sk == "P":
    return 2 * (n - 1) / n * nbytes if dk == "B" else (n - 1) / n * nbytes
if dk == "B":
    return (n - 1) / n * nbytes
return (n - 1) / n**2 * nbytes
