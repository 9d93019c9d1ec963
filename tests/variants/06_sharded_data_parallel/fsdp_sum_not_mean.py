# cell: fsdp_blocks
# region: 4
# loses: test_fsdp_blocks
# reduce-scatters the gradients but keeps the sum over ranks
self.waiting -= 1
if self.waiting:
    return
grads = flat_padded([q.grad for q in self.params], self.world_size)
for q in self.params:
    q.grad = None
self.grad_shard = torch.empty(self.shard, dtype=grads.dtype)
dist.reduce_scatter_single(self.grad_shard, grads)
free_storage_(self.flat)
