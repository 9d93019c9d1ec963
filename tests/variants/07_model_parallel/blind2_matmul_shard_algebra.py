# cell: matmul_placement
# scores: full
# Correct, derived from the algebra rather than a table: rows of X pass through a full W, columns of W through a
# full X, an inner-axis split on both sides gives a summand, and one partial operand times a full one stays
# partial; everything else is a ValueError naming both placements.
x, w = parse_placement(x_placement), parse_placement(w_placement)
pair = f"X {x_placement} @ W {w_placement}"
if x == ("B", None) and w == ("B", None):
    return "B"
if x == ("S", 0) and w == ("B", None):
    return "S(0)"
if x == ("B", None) and w == ("S", 1):
    return "S(1)"
if x == ("S", 1) and w == ("S", 0):
    return "P"
if {x[0], w[0]} == {"P", "B"}:
    return "P"
raise ValueError(f"{pair}: the ranks' products X_r @ W_r are not a placement of Y")
