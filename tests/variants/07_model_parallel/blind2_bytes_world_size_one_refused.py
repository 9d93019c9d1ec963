# cell: conversion_bytes
# loses: test_conversion_bytes
# Boundary off by one: "a collective needs two ranks", so world_size == 1 raises ValueError, although 1 is a
# valid world size (only world_size < 1 is refused; on one rank every conversion costs 0.0).
if world_size <= 1:
    raise ValueError(f"world_size must be at least 2, got {world_size}")
(sk, sa), (dk, da) = parse_placement(src), parse_placement(dst)
n = world_size
if sk == "B" or (sk, sa) == (dk, da) or (sk == "S" and dk == "P"):
    return 0.0
if sk == "P":
    return 2 * (n - 1) / n * nbytes if dk == "B" else (n - 1) / n * nbytes
if dk == "B":
    return (n - 1) / n * nbytes
return (n - 1) / n**2 * nbytes
