# cell: matmul_placement
# loses: test_matmul_placement
# Dispatches on X's placement and refuses inside each branch with a message about W only ("X split by rows needs
# a broadcast W, got 'S(1)'"): the ValueError names w_placement but not x_placement in the promised
# placement words, breaking "a message that names both placements".
if x_placement == "S(0)":
    if w_placement == "B":
        return "S(0)"
    raise ValueError(f"X split by rows needs a broadcast W, got {w_placement!r}")
if x_placement == "S(1)":
    if w_placement == "S(0)":
        return "P"
    raise ValueError(f"X split along the inner axis needs W split by rows, got {w_placement!r}")
if x_placement == "P":
    if w_placement == "B":
        return "P"
    raise ValueError(f"a partial X needs a broadcast W, got {w_placement!r}")
if x_placement == "B":
    if w_placement in ("B", "S(1)", "P"):
        return w_placement
    raise ValueError(f"a broadcast X cannot multiply W placed {w_placement!r}")
raise ValueError(f"unknown placement of X: {x_placement!r}")
