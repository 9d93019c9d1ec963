# cell: fsdp_blocks
# scores: full
# Correct: one flat vector per block that the parameters view; its storage is emptied with free_storage_ after
# __init__, after forward and once the block's last gradient has arrived, and refilled by gather() (an all-gather
# from every rank's param_shard into the same storage, so autograd's saved views of the weight see it). A tensor
# hook on the block's output regathers just before the block's backward; the post-accumulate hook of the block's
# last gradient reduce-scatters the block's padded gradient (sum / world size) into a new grad_shard.
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
self.grad_shard = torch.empty(self.shard, dtype=full.dtype)
dist.reduce_scatter_single(self.grad_shard, full)
del full
self.grad_shard.div_(self.world_size)
