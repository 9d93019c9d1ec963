# cell: matmul_placement
# scores: full
# Reasoned axis by axis: X's rows and W's columns may be split (they become Y's), the inner axis must be split on
# both or on neither, and at most one operand may be partial, with the other broadcast.
(xk, xa), (wk, wa) = parse_placement(x_placement), parse_placement(w_placement)
refuse = ValueError(f"{x_placement} @ {w_placement}: not a placement of the product")
if xk == "P" or wk == "P":
    if (xk, wk) in (("P", "B"), ("B", "P")):
        return "P"
    raise refuse
if xk == "S" and wk == "S":
    if (xa, wa) == (1, 0):
        return "P"
    raise refuse
if xk == "S":
    if xa == 0:
        return "S(0)"
    raise refuse
if wk == "S":
    if wa == 1:
        return "S(1)"
    raise refuse
return "B"
