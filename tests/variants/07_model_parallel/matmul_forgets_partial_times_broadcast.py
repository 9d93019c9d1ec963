# cell: matmul_placement
# loses: test_matmul_placement
# Only the three rules of the split cases: a partial times a broadcast (and the reverse) refused.
rules = {("S(0)", "B"): "S(0)", ("B", "S(1)"): "S(1)", ("S(1)", "S(0)"): "P", ("B", "B"): "B"}
if (x_placement, w_placement) not in rules:
    raise ValueError(f"cannot multiply X {x_placement} by W {w_placement}")
return rules[(x_placement, w_placement)]
