# cell: zero_adam
# loses: test_zero_adam
# Stage 3 makes param_shard a view of the vector gathered for forward ("update in place, the model sees it"):
# after step() frees the model's parameters, self.param_shard still holds the whole gathered vector's storage, so
# a ZeRO-3 rank keeps every parameter between steps. Values are exact; the contract keeps only its shard
# (self.param_shard, a shard's worth of memory) at stage 3. On 2 ranks the whole vector is 2 shards, exactly
# what a rank may keep at stage 3 if it also kept its gradient shard ("its shard (or none)"): the memory is
# also measured at stage 3 on 4 ranks, where the gathered vector is twice what the shards allow.
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
    self.param_shard = full[self.rank * self.shard:(self.rank + 1) * self.shard]
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
