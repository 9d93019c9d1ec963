# cell: tp_mlp_step
# loses: test_tp_mlp_step
# "b2 is added once" read as "only rank 0 owns b2": rank 0 returns dy.sum(0) for db2, the other ranks zeros.
# y, dx, dW1, db1, dW2 are right and the bytes are two allreduces, but the promise is rank r's gradient of b2
# equal to the unsharded layer's on EVERY rank (b2 is broadcast: each rank keeps and updates a full copy).
n = len(w1)
leaves, partial = [], []
for r in range(n):
    xr, a, c, w = (t.detach().clone().requires_grad_() for t in (x, w1[r], b1[r], w2[r]))
    z = F.gelu(xr @ a + c) @ w
    leaves.append((xr, a, c, w, z))
    partial.append(z.detach())
ys = [y + b2 for y in comm.all_reduce(partial)]
for xr, a, c, w, z in leaves:
    z.backward(dy)
dxs = comm.all_reduce([l[0].grad for l in leaves])
db2 = [dy.sum(0).clone() if r == 0 else torch.zeros_like(b2) for r in range(n)]
return (ys, dxs, [l[1].grad for l in leaves], [l[2].grad for l in leaves], [l[3].grad for l in leaves], db2)
