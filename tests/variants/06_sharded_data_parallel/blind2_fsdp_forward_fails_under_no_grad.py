# cell: fsdp_blocks
# loses: test_fsdp_blocks
# Registers the regather hook on the output unconditionally: under torch.no_grad() (evaluation) or with
# parameters that do not require grad, out.register_hook raises RuntimeError ("cannot register a hook on a tensor
# that doesn't require gradient"). The contract: forward(x) returns block(x) computed with the full, current
# parameters; training (the only thing fsdp_train_ does) is unaffected.
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
