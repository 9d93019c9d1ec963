# cell: conversion_bytes
# loses: test_conversion_bytes
# "Broadcast to anything is free" is answered before dst is parsed, so ("B", "Q") returns 0.0: breaks
# "(through parse_placement) [raise ValueError] for a placement that is not 'B', 'P' or 'S(k)'".
if world_size < 1:
    raise ValueError(f"world_size must be at least 1, got {world_size}")
if src == "B":
    return 0.0
sk, sa = parse_placement(src)
dk, da = parse_placement(dst)
n = world_size
if (sk, sa) == (dk, da) or (sk == "S" and dk == "P"):
    return 0.0
if sk == "P":
    return float(2 * (n - 1) / n * nbytes) if dk == "B" else float((n - 1) / n * nbytes)
if dk == "B":
    return float((n - 1) / n * nbytes)
return float((n - 1) / n**2 * nbytes)
