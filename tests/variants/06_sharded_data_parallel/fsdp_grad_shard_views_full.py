# cell: fsdp_blocks
# region: 4
# loses: test_fsdp_blocks
# all-reduces the block's full gradient and keeps a slice of it: the shard is a view that keeps the whole buffer alive
self.waiting -= 1
if self.waiting:
    return
grads = flat_padded([q.grad for q in self.params], self.world_size)
for q in self.params:
    q.grad = None
dist.all_reduce(grads)
grads /= self.world_size
self.grad_shard = grads[self.rank * self.shard:(self.rank + 1) * self.shard]
free_storage_(self.flat)
