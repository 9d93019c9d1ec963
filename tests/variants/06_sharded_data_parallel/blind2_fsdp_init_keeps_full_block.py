# cell: fsdp_blocks
# loses: test_fsdp_blocks
# __init__ builds the flat vector, points the parameters into it and clones param_shard, but does not free the
# vector ("forward frees it after the first use anyway"): after __init__ the block's parameters still hold the
# whole block, so while fsdp_train_ builds the model every block is resident at once (the whole model, which no
# rank may ever hold). Values exact, and from the first forward on the memory is as it should be.
self.flat = flat_padded(self.params, self.world_size)
view_into_(self.params, self.flat)
lo = self.rank * self.shard
self.param_shard = self.flat[lo:lo + self.shard].clone()
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
self.grad_shard = torch.empty(self.shard, dtype=full.dtype)
dist.reduce_scatter_single(self.grad_shard, full)
del full
self.grad_shard.div_(self.world_size)
