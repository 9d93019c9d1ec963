# cell: fsdp_blocks
# region: 2
# loses: test_fsdp_blocks
# frees by replacing p.data (Exercise 4's free_) and gathers into a new vector each time: autograd's saved view of each weight keeps every gathered block alive until its backward
flat = torch.empty(self.shard * self.world_size, dtype=self.param_shard.dtype)
dist.all_gather_single(flat, self.param_shard)
view_into_(self.params, flat)
del flat
out = self.block(x)
free_(self.params)
if out.requires_grad:
    self.waiting = len(self.params)

    def regather(grad):
        self.flat = torch.empty(self.shard * self.world_size, dtype=self.param_shard.dtype)
        dist.all_gather_single(self.flat, self.param_shard)
        view_into_(self.params, self.flat)

    out.register_hook(regather)
return out
