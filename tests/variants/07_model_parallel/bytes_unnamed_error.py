# cell: conversion_bytes
# loses: test_conversion_bytes
# Right bytes, but world_size < 1 is not refused: 0 ranks give a ZeroDivisionError, -2 a number.
(s, s_axis), (d, d_axis) = parse_placement(src), parse_placement(dst)
n = world_size
if (s, s_axis) == (d, d_axis) or s == "B" or d == "P":
    return 0.0
if s == "P":
    return (2.0 if d == "B" else 1.0) * (n - 1) / n * nbytes
return (n - 1) / n * nbytes if d == "B" else (n - 1) / n**2 * nbytes
