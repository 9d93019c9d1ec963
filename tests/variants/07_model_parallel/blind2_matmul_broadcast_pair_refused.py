# cell: matmul_placement
# loses: test_matmul_placement
# Forgets the trivial pair: B @ B is refused ("nothing is sharded, so this is not model parallelism"), although
# every rank computing the whole X @ W holds Y broadcast: the promise is the placement of Y for every pair whose
# ranks' products are a placement, and B @ B -> "B" is one.
rules = {("S(0)", "B"): "S(0)", ("B", "S(1)"): "S(1)", ("S(1)", "S(0)"): "P",
         ("P", "B"): "P", ("B", "P"): "P"}
try:
    return rules[(x_placement, w_placement)]
except KeyError:
    raise ValueError(f"X {x_placement} @ W {w_placement}: the ranks' products are not a placement of Y") from None
