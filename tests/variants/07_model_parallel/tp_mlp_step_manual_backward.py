# cell: tp_mlp_step
# scores: full
# Correct, another style: no autograd; the backward written out by hand (exact GELU derivative), with Megatron's
# g (allreduce of the partial Y) forward and f (allreduce of the partial dX) backward.
n = len(w1)
xd, dyd, b2d = x.detach(), dy.detach(), b2.detach()
pre = [xd @ w1[r].detach() + b1[r].detach() for r in range(n)]
act = [F.gelu(z) for z in pre]
y = [t + b2d for t in comm.all_reduce([act[r] @ w2[r].detach() for r in range(n)])]
dw2 = [act[r].T @ dyd for r in range(n)]
dact = [dyd @ w2[r].detach().T for r in range(n)]
dgelu = [0.5 * (1 + torch.erf(z / math.sqrt(2))) + z * torch.exp(-0.5 * z * z) / math.sqrt(2 * math.pi) for z in pre]
dpre = [dact[r] * dgelu[r] for r in range(n)]
db1 = [d.sum(0) for d in dpre]
dw1 = [xd.T @ d for d in dpre]
dx = comm.all_reduce([dpre[r] @ w1[r].detach().T for r in range(n)])
db2 = [dyd.sum(0).clone() for _ in range(n)]
return y, dx, dw1, db1, dw2, db2
