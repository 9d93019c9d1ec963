# cell: tp_mlp_step
# scores: full
# Correct, functional style: torch.func.vjp per rank (no .grad touched anywhere, no requires_grad on the
# inputs), g = one allreduce of the partial outputs forward, f = one allreduce of the partial dX backward,
# b2 added after the allreduce and its gradient dy.sum(0) on every rank.
from torch.func import vjp

n = len(w1)
partial, pullbacks = [], []
for r in range(n):
    out, pullback = vjp(lambda xx, a, c, w: F.gelu(xx @ a + c) @ w,
                        x.detach(), w1[r].detach(), b1[r].detach(), w2[r].detach())
    partial.append(out)
    pullbacks.append(pullback)
y = [t + b2.detach() for t in comm.all_reduce(partial)]
grads = [pullback(dy.detach()) for pullback in pullbacks]
dx = comm.all_reduce([g[0] for g in grads])
return (y, dx, [g[1] for g in grads], [g[2] for g in grads], [g[3] for g in grads],
        [dy.detach().sum(0) for _ in range(n)])
