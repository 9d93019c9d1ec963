# cell: fsdp_blocks
# scores: full
# Correct, another style: the forward runs under torch.autograd.graph.saved_tensors_hooks whose unpack hook
# regathers the block the first time its backward reads a saved tensor (the Tanh's output, then the weight);
# a gathered flag says whether the block's storage holds the values. The gradients are collected in a dict by the
# post-accumulate hooks and reduce-scattered when the block's last one arrives.
self.flat = flat_padded(self.params, self.world_size)
view_into_(self.params, self.flat)
self.param_shard = self.flat.narrow(0, self.rank * self.shard, self.shard).clone()
free_storage_(self.flat)
self.gathered = False
self.grads_in = {}
for p in self.params:
    p.register_post_accumulate_grad_hook(self.grad_arrived)
# region: 2
def pack(t):
    return t


def unpack(t):
    if not self.gathered:
        self.gather()
    return t


self.gather()
with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
    out = self.block(x)
free_storage_(self.flat)
self.gathered = False
return out
# region: 3
refill_storage_(self.flat)
dist.all_gather_single(self.flat, self.param_shard)
self.gathered = True
# region: 4
self.grads_in[id(p)] = p.grad
if len(self.grads_in) == len(self.params):
    grad = flat_padded([self.grads_in[id(q)] for q in self.params], self.world_size)
    self.grads_in = {}
    for q in self.params:
        q.grad = None
    free_storage_(self.flat)
    self.gathered = False
    mine = torch.zeros(self.shard, dtype=grad.dtype)
    dist.reduce_scatter_single(mine, grad)
    self.grad_shard = mine / self.world_size
