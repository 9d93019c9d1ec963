# cell: matmul_placement
# loses: test_matmul_placement
# S(1) @ S(0) taken for a broadcast: each rank's product looks like a full Y, but it is only a summand.
rules = {("S(0)", "B"): "S(0)", ("B", "S(1)"): "S(1)", ("S(1)", "S(0)"): "B",
         ("B", "B"): "B", ("P", "B"): "P", ("B", "P"): "P"}
if (x_placement, w_placement) not in rules:
    raise ValueError(f"cannot multiply X {x_placement} by W {w_placement}")
return rules[(x_placement, w_placement)]
