# cell: matmul_placement
# scores: full
# Correct, another style: place integer X and W on 3 ranks (uneven lengths), multiply rank by rank, and ask which
# placement (if any) the products are of X @ W; ValueError naming both when none (or the shapes do not multiply).
n = 3
g = torch.Generator().manual_seed(1234)
X = torch.randint(-3, 4, (5, 7), generator=g).to(torch.float64)
W = torch.randint(-3, 4, (7, 4), generator=g).to(torch.float64)
Y = X @ W
xs, ws = place(X, x_placement, n, g), place(W, w_placement, n, g)
try:
    ys = [a @ b for a, b in zip(xs, ws)]
except RuntimeError:
    ys = None
if ys is not None:
    for candidate in ("B", "S(0)", "S(1)", "P"):
        kind, axis = parse_placement(candidate)
        if kind == "B":
            ok = all(t.shape == Y.shape and torch.equal(t, Y) for t in ys)
        elif kind == "P":
            ok = all(t.shape == Y.shape for t in ys) and torch.equal(torch.stack(ys).sum(0), Y)
        else:
            want = torch.tensor_split(Y, n, dim=axis)
            ok = all(t.shape == u.shape and torch.equal(t, u) for t, u in zip(ys, want))
        if ok:
            return candidate
raise ValueError(f"X placed {x_placement} @ W placed {w_placement}: the ranks' products X_r @ W_r are no placement of Y")
