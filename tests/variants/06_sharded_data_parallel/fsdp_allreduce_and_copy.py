# cell: fsdp_blocks
# region: 4
# scores: full
# another way: all-reduce the block's gradient, copy this rank's shard out of it (a tensor of its own), drop the rest
self.waiting -= 1
if self.waiting > 0:
    return
full = torch.cat([q.grad.reshape(-1) for q in self.params])
for q in self.params:
    q.grad = None
dist.all_reduce(full)
shard = torch.zeros(self.shard, dtype=full.dtype)
lo = self.rank * self.shard
piece = full[lo:lo + self.shard]
shard[:piece.numel()] = piece / self.world_size
del full, piece
self.grad_shard = shard
free_storage_(self.flat)
