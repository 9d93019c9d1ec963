# cell: bucketed_ddp
# loses: test_bucketed_ddp
# Preallocates each bucket's flat buffer with torch.zeros(n) (the default dtype, float32) and copies the float64
# gradients into it: the allreduce runs in float32 (half the bytes on the wire) and the mean copied back is
# rounded to float32, so the parameters are no longer the averaged float64 step to the bit.
self.params = list(model.parameters())
self.world_size = dist.get_world_size()
plan = bucket_plan([p.numel() * p.element_size() for p in self.params], bucket_cap_bytes)
self.buckets = [[self.params[i] for i in bucket] for bucket in plan]
self.flats = [torch.zeros(sum(p.numel() for p in bucket)) for bucket in self.buckets]
self.bucket_of = {id(p): b for b, bucket in enumerate(self.buckets) for p in bucket}
self.arrived = [0] * len(self.buckets)
self.pending = []


def on_grad(p):
    if not self.require_sync:
        return
    b = self.bucket_of[id(p)]
    self.arrived[b] += 1
    if self.arrived[b] == len(self.buckets[b]):
        flat, offset = self.flats[b], 0
        for q in self.buckets[b]:
            flat[offset:offset + q.numel()].copy_(q.grad.reshape(-1))
            offset += q.numel()
        self.pending.append((dist.all_reduce(flat, async_op=True), b))


for p in self.params:
    p.register_post_accumulate_grad_hook(on_grad)
# region: 2
for handle, b in self.pending:
    handle.wait()
    flat = self.flats[b]
    flat.div_(self.world_size)
    offset = 0
    for q in self.buckets[b]:
        q.grad.copy_(flat[offset:offset + q.numel()].view_as(q.grad))
        offset += q.numel()
self.pending = []
self.arrived = [0] * len(self.buckets)
