# cell: tp_mlp_step
# loses: test_tp_mlp_step
# The column-parallel output is all-gathered right after GELU (and W2's rows with it), so every rank computes the
# whole second matmul: right values, but two all-gathers in place of one allreduce, and dX still needs its own.
n = len(w1)
a = [x @ w1[r] + b1[r] for r in range(n)]
h = comm.all_gather([F.gelu(t) for t in a], 1)
W2 = comm.all_gather(list(w2), 0)
y = [h[r] @ W2[r] + b2 for r in range(n)]
dh_full = dy @ W2[0].T
sizes = [t.shape[1] for t in w1]
dh = torch.split(dh_full, sizes, dim=1)
da = []
for r in range(n):
    ar = a[r].detach().clone().requires_grad_()
    F.gelu(ar).backward(dh[r])
    da.append(ar.grad)
dx = comm.all_reduce([da[r] @ w1[r].T for r in range(n)])
hs = torch.split(h[0], sizes, dim=1)
return (y, dx, [x.T @ da[r] for r in range(n)], [da[r].sum(0) for r in range(n)], [hs[r].T @ dy for r in range(n)],
        [dy.sum(0) for _ in range(n)])
