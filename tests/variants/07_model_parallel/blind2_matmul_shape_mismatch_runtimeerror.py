# cell: matmul_placement
# loses: test_matmul_placement
# Two kinds of refusal: pairs whose local shapes cannot even be multiplied (inner axis split on one side only:
# S(0)@S(0), S(1)@B, B@S(0), S(1)@S(1), ...) raise RuntimeError, as torch.matmul would; only "multipliable but
# no placement" pairs raise ValueError. The contract asks ValueError for both.
rules = {("S(0)", "B"): "S(0)", ("B", "S(1)"): "S(1)", ("S(1)", "S(0)"): "P",
         ("B", "B"): "B", ("P", "B"): "P", ("B", "P"): "P"}
if (x_placement, w_placement) in rules:
    return rules[(x_placement, w_placement)]
if (x_placement == "S(1)") != (w_placement == "S(0)"):
    raise RuntimeError(f"X {x_placement} @ W {w_placement}: the local shapes do not match on the inner axis")
raise ValueError(f"X {x_placement} @ W {w_placement}: the ranks' products are not a placement of Y")
