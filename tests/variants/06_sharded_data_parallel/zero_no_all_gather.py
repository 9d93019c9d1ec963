# cell: zero_adam
# region: 3
# loses: test_zero_adam
# ZeRO-1/2 that updates its shard of the model and never all-gathers: the other ranks' shards stay stale
grads = flat_padded([p.grad for p in self.params], self.world_size)
grad = torch.empty(self.shard, dtype=grads.dtype)
dist.reduce_scatter_single(grad, grads)
del grads
grad /= self.world_size
if self.stage >= 2:
    for p in self.params:
        p.grad = None
    self.grad_shard = grad
beta1, beta2 = self.betas
self.steps += 1
self.exp_avg.lerp_(grad, 1 - beta1)
self.exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
denom = (self.exp_avg_sq.sqrt() / (1 - beta2 ** self.steps) ** 0.5).add_(self.eps)
with torch.no_grad():
    self.param_shard.addcdiv_(self.exp_avg, denom, value=-self.lr / (1 - beta1 ** self.steps))
if self.stage == 3:
    free_(self.params)
