# cell: fsdp_blocks
# loses: test_fsdp_blocks
# Adds each backward's reduce-scattered mean into grad_shard ("gradients accumulate, as .grad does"); nothing
# in fsdp_train_ zeroes it, so from the second step on the update uses the sum of all steps' gradients. The
# contract: through the backward, grad_shard is this rank's shard of the mean gradient of that backward.
self.flat = flat_padded(self.params, self.world_size)
view_into_(self.params, self.flat)
lo = self.rank * self.shard
self.param_shard = self.flat[lo:lo + self.shard].clone()
free_storage_(self.flat)
self.arrived = 0
for p in self.params:
    p.register_post_accumulate_grad_hook(self.grad_arrived)
# region: 2
self.gather()
out = self.block(x)
free_storage_(self.flat)
if out.requires_grad:
    def regather(grad):
        self.gather()
        return grad
    out.register_hook(regather)
return out
# region: 3
refill_storage_(self.flat)
dist.all_gather_single(self.flat, self.param_shard)
# region: 4
self.arrived += 1
if self.arrived < len(self.params):
    return
self.arrived = 0
full = flat_padded([q.grad for q in self.params], self.world_size)
for q in self.params:
    q.grad = None
free_storage_(self.flat)
mine = torch.empty(self.shard, dtype=full.dtype)
dist.reduce_scatter_single(mine, full)
del full
mine.div_(self.world_size)
if self.grad_shard is None:
    self.grad_shard = mine
else:
    self.grad_shard += mine
