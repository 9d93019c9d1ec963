# cell: fsdp_blocks
# loses: test_fsdp_blocks
# Builds the padded gradient vector with torch.empty and writes only the block's numel elements: for a block of
# odd numel the last rank's padding element of grad_shard is whatever the allocator left, and param_shard's
# padding drifts with it (`param_shard -= lr * grad_shard`), possibly to NaN or inf. The contract: param_shard is
# the rank's shard of the zero-padded vector; only the padding element is wrong, and only when the memory
# handed back is not already zero.
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
full = torch.empty(self.world_size * self.shard, dtype=self.params[0].grad.dtype)
torch.cat([q.grad.reshape(-1) for q in self.params], out=full[:self.numel])
for q in self.params:
    q.grad = None
free_storage_(self.flat)
self.grad_shard = torch.empty(self.shard, dtype=full.dtype)
dist.reduce_scatter_single(self.grad_shard, full)
del full
self.grad_shard.div_(self.world_size)
