# cell: bucketed_ddp
# scores: full
# Correct, another style (DDP's own: a flat buffer per bucket): the hook counts this backward's arrivals per bucket
# (nothing counted under no_sync), and when the bucket's last gradient arrives copies the bucket into one flat
# float64 buffer and starts one async allreduce of it; finish() waits for each handle, divides by the world size
# and copies the mean back into every .grad, then resets the handles and counters for the next backward.
self.params = list(model.parameters())
self.world_size = dist.get_world_size()
plan = bucket_plan([p.numel() * p.element_size() for p in self.params], bucket_cap_bytes)
self.buckets = [[self.params[i] for i in bucket] for bucket in plan]
self.bucket_of = {id(p): b for b, bucket in enumerate(self.buckets) for p in bucket}
self.arrived = [0] * len(self.buckets)
self.pending = []


def on_grad(p):
    if not self.require_sync:
        return
    b = self.bucket_of[id(p)]
    self.arrived[b] += 1
    if self.arrived[b] == len(self.buckets[b]):
        flat = torch.cat([q.grad.reshape(-1) for q in self.buckets[b]])
        self.pending.append((dist.all_reduce(flat, async_op=True), flat, b))


for p in self.params:
    p.register_post_accumulate_grad_hook(on_grad)
# region: 2
for handle, flat, b in self.pending:
    handle.wait()
    flat.div_(self.world_size)
    offset = 0
    for q in self.buckets[b]:
        q.grad.copy_(flat[offset:offset + q.numel()].view_as(q.grad))
        offset += q.numel()
self.pending = []
self.arrived = [0] * len(self.buckets)
