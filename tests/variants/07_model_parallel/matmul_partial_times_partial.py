# cell: matmul_placement
# loses: test_matmul_placement
# "Partial in, partial out": P @ P accepted, as if a product were linear in both operands at once.
rules = {("S(0)", "B"): "S(0)", ("B", "S(1)"): "S(1)", ("S(1)", "S(0)"): "P",
         ("B", "B"): "B", ("P", "B"): "P", ("B", "P"): "P", ("P", "P"): "P"}
if (x_placement, w_placement) not in rules:
    raise ValueError(f"cannot multiply X {x_placement} by W {w_placement}")
return rules[(x_placement, w_placement)]
