# cell: zero_adam
# region: 1
# loses: test_zero_adam
# keeps its own copy of its parameter shard beside the model's full parameters (a master copy float64 does not need)
flat = flat_padded(self.params, self.world_size)
mine = slice(self.rank * self.shard, (self.rank + 1) * self.shard)
self.param_shard = flat[mine].clone()
if stage == 3:
    free_(self.params)
else:
    view_into_(self.params, flat)
    self.flat = flat
self.exp_avg = torch.zeros_like(self.param_shard)
self.exp_avg_sq = torch.zeros_like(self.param_shard)
self.grad_shard = None
