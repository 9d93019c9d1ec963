# cell: fsdp_blocks
# region: 4
# loses: test_fsdp_blocks
# reduces as soon as the first gradient of the block arrives, as if the hook ran once per block (a block with a bias has two)
grads = flat_padded([q.grad if q.grad is not None else torch.zeros_like(q) for q in self.params], self.world_size)
for q in self.params:
    q.grad = None
self.grad_shard = torch.empty(self.shard, dtype=grads.dtype)
dist.reduce_scatter_single(self.grad_shard, grads)
self.grad_shard /= self.world_size
