# cell: zero_adam
# region: 3
# scores: full
# torch.optim.Adam on a Parameter that shares the shard's storage; its state tensors are the ones exposed
grads = flat_padded([p.grad for p in self.params], self.world_size)
grad = torch.empty(self.shard, dtype=grads.dtype)
dist.reduce_scatter_single(grad, grads)
del grads
grad /= self.world_size
if self.stage >= 2:
    for p in self.params:
        p.grad = None
if not hasattr(self, "adam"):
    self.shard_param = torch.nn.Parameter(self.param_shard)
    self.adam = torch.optim.Adam([self.shard_param], lr=self.lr, betas=self.betas, eps=self.eps)
self.shard_param.grad = grad
self.adam.step()
self.shard_param.grad = None
state = self.adam.state[self.shard_param]
self.exp_avg, self.exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
if self.stage == 3:
    free_(self.params)
else:
    dist.all_gather_single(self.flat, self.param_shard.clone())
