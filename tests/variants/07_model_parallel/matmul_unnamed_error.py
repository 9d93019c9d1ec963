# cell: matmul_placement
# loses: test_matmul_placement
# Right placements, but the error does not say which pair was refused.
rules = {("S(0)", "B"): "S(0)", ("B", "S(1)"): "S(1)", ("S(1)", "S(0)"): "P",
         ("B", "B"): "B", ("P", "B"): "P", ("B", "P"): "P"}
if (x_placement, w_placement) not in rules:
    raise ValueError("invalid placements for a matmul")
return rules[(x_placement, w_placement)]
