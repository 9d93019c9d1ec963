# cell: zero_adam
# region: 3
# scores: full
# the list forms of the collectives, DeepSpeed's ZeRO-1 route (allreduce, then the shard) and Adam as printed in the paper
grads = flat_padded([p.grad for p in self.params], self.world_size)
if self.stage == 1:
    dist.all_reduce(grads)
    grad = grads[self.rank * self.shard:(self.rank + 1) * self.shard].clone()
else:
    grad = torch.empty(self.shard, dtype=grads.dtype)
    dist.reduce_scatter(grad, list(grads.chunk(self.world_size)))
del grads
grad = grad / self.world_size
if self.stage >= 2:
    for p in self.params:
        p.grad = None
beta1, beta2 = self.betas
self.steps += 1
self.exp_avg.mul_(beta1).add_((1 - beta1) * grad)
self.exp_avg_sq.mul_(beta2).add_((1 - beta2) * grad * grad)
m_hat = self.exp_avg / (1 - beta1 ** self.steps)
v_hat = self.exp_avg_sq / (1 - beta2 ** self.steps)
with torch.no_grad():
    self.param_shard -= self.lr * m_hat / (v_hat.sqrt() + self.eps)
del m_hat, v_hat
if self.stage == 3:
    free_(self.params)
else:
    dist.all_gather(list(self.flat.chunk(self.world_size)), self.param_shard.clone())
