# cell: zero_adam
# scores: full
# Correct, another style: one flat padded vector that the model's parameters view (stages 1, 2; param_shard a
# view of this rank's piece of it, no second copy), or only an owned shard with the parameters freed (stage 3);
# gradients reduce-scattered (sum, then / world size), torch.optim.Adam's single-tensor update on the shard
# (lerp_, addcmul_, sqrt / bias_correction2 ** 0.5 + eps, addcdiv_), then all-gathered into the model's vector
# (stages 1, 2) or gathered again in gather() (stage 3).
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
denom = (self.exp_avg_sq.sqrt() / bias_correction2 ** 0.5).add_(self.eps)
self.param_shard.addcdiv_(self.exp_avg, denom, value=-(self.lr / bias_correction1))
if self.stage == 3:
    free_(self.params)
else:
    dist.all_gather_single(self.flat, self.param_shard.clone())
