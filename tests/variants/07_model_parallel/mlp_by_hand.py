# cell: tp_mlp_step
# scores: full
# No autograd: the backward written out, with GELU's derivative Phi(a) + a phi(a) (the exact GELU).
n = len(w1)
a = [x @ w1[r] + b1[r] for r in range(n)]
h = [F.gelu(t) for t in a]
y = [t + b2 for t in comm.all_reduce([h[r] @ w2[r] for r in range(n)])]
dw2 = [h[r].T @ dy for r in range(n)]
da = []
for r in range(n):
    phi = torch.exp(-0.5 * a[r] ** 2) / math.sqrt(2 * math.pi)
    cdf = 0.5 * (1 + torch.erf(a[r] / math.sqrt(2)))
    da.append((dy @ w2[r].T) * (cdf + a[r] * phi))
dx = comm.all_reduce([da[r] @ w1[r].T for r in range(n)])
return y, dx, [x.T @ d for d in da], [d.sum(0) for d in da], dw2, [dy.sum(0) for _ in range(n)]
