# cell: fsdp_blocks
# region: 4
# loses: test_fsdp_blocks
# right gradient shards, but every parameter's full .grad is left in place after the reduce-scatter
self.waiting -= 1
if self.waiting:
    return
grads = flat_padded([q.grad for q in self.params], self.world_size)
self.grad_shard = torch.empty(self.shard, dtype=grads.dtype)
dist.reduce_scatter_single(self.grad_shard, grads)
self.grad_shard /= self.world_size
free_storage_(self.flat)
