# cell: zero_adam
# region: 3
# loses: test_zero_adam
# allreduces the gradients and keeps Adam's state for the whole vector on every rank; updates only its shard
grads = flat_padded([p.grad for p in self.params], self.world_size)
dist.all_reduce(grads)
grads /= self.world_size
if self.stage >= 2:
    for p in self.params:
        p.grad = None
mine = slice(self.rank * self.shard, (self.rank + 1) * self.shard)
if not hasattr(self, "m_full"):
    self.m_full, self.v_full = torch.zeros_like(grads), torch.zeros_like(grads)
beta1, beta2 = self.betas
self.steps += 1
self.m_full.lerp_(grads, 1 - beta1)
self.v_full.mul_(beta2).addcmul_(grads, grads, value=1 - beta2)
self.exp_avg, self.exp_avg_sq = self.m_full[mine], self.v_full[mine]
denom = (self.exp_avg_sq.sqrt() / (1 - beta2 ** self.steps) ** 0.5).add_(self.eps)
with torch.no_grad():
    self.param_shard.addcdiv_(self.exp_avg, denom, value=-self.lr / (1 - beta1 ** self.steps))
if self.stage == 3:
    free_(self.params)
else:
    dist.all_gather_single(self.flat, self.param_shard.clone())
