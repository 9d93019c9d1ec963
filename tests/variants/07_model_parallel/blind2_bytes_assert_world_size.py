# cell: conversion_bytes
# loses: test_conversion_bytes
# Wrong error type: world_size < 1 is refused with an assert (AssertionError, and nothing at all under
# python -O) instead of the promised ValueError naming world_size.
assert world_size >= 1, f"world_size must be at least 1, got {world_size}"
(sk, sa), (dk, da) = parse_placement(src), parse_placement(dst)
n = world_size
if sk == "B" or (sk, sa) == (dk, da) or (sk == "S" and dk == "P"):
    return 0.0
if sk == "P":
    return 2 * (n - 1) / n * nbytes if dk == "B" else (n - 1) / n * nbytes
if dk == "B":
    return (n - 1) / n * nbytes
return (n - 1) / n**2 * nbytes
