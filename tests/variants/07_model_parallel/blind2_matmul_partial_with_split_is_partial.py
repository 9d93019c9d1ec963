# cell: matmul_placement
# loses: test_matmul_placement
# "A partial operand makes the product partial": P combined with any non-partial placement returns "P", so
# P @ S(1), S(0) @ P (and the unmultipliable P @ S(0), S(1) @ P) are accepted as partial. Only P @ B and B @ P
# are partials of Y; X_r @ W[:, cols_r] summed over r is no placement (each rank's summand covers other columns).
if x_placement == "P" and w_placement == "P":
    raise ValueError(f"X {x_placement} @ W {w_placement}: a product is not linear in both operands at once")
if "P" in (x_placement, w_placement):
    return "P"
rules = {("S(0)", "B"): "S(0)", ("B", "S(1)"): "S(1)", ("S(1)", "S(0)"): "P", ("B", "B"): "B"}
if (x_placement, w_placement) not in rules:
    raise ValueError(f"X {x_placement} @ W {w_placement}: the ranks' products are not a placement of Y")
return rules[(x_placement, w_placement)]
