# cell: zero_adam
# loses: test_zero_adam
# Adam's denominator as sqrt(v_hat + eps) instead of torch.optim.Adam's sqrt(v) / sqrt(bias_correction2) + eps:
# the state tensors are exact, the parameters differ by a relative ~eps / v_hat of each update.
lo, hi = self.rank * self.shard, (self.rank + 1) * self.shard
flat = flat_padded(self.params, self.world_size)
if stage == 3:
    self.flat = None
    self.param_shard = flat[lo:hi].clone()
    del flat
    free_(self.params)
else:
    self.flat = flat
    view_into_(self.params, self.flat)
    self.param_shard = self.flat[lo:hi]
self.exp_avg = torch.zeros_like(self.param_shard)
self.exp_avg_sq = torch.zeros_like(self.param_shard)
# region: 2
if self.stage == 3:
    full = torch.empty(self.world_size * self.shard, dtype=self.param_shard.dtype)
    dist.all_gather_single(full, self.param_shard)
    view_into_(self.params, full)
# stages 1 and 2: step() left the model's vector current
# region: 3
grads = [p.grad if p.grad is not None else torch.zeros(getattr(p, "full_shape", p.shape), dtype=p.dtype)
         for p in self.params]
full_grad = flat_padded(grads, self.world_size)
del grads
for p in self.params:
    p.grad = None
grad = torch.empty(self.shard, dtype=full_grad.dtype)
dist.reduce_scatter_single(grad, full_grad)
del full_grad
grad.div_(self.world_size)
self.steps += 1
beta1, beta2 = self.betas
self.exp_avg.lerp_(grad, 1 - beta1)
self.exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
bias_correction1 = 1 - beta1 ** self.steps
bias_correction2 = 1 - beta2 ** self.steps
denom = (self.exp_avg_sq / bias_correction2 + self.eps).sqrt()
self.param_shard.addcdiv_(self.exp_avg, denom, value=-(self.lr / bias_correction1))
if self.stage == 3:
    free_(self.params)
else:
    dist.all_gather_single(self.flat, self.param_shard.clone())
