# cell: bucketed_ddp
# loses: test_bucketed_ddp
# Plans the buckets with p.numel() (elements) instead of bytes: in float64 every bucket holds 8x the cap, so a cap
# that cuts the model into several buckets gives fewer, larger ones (cap 1000: 2 buckets instead of 3), one
# collective fewer per step than bucket_plan over the sizes in bytes. Values stay exact; with the visible test's
# cap (10**6, one bucket either way) nothing differs.
self.params = list(model.parameters())
self.world_size = dist.get_world_size()
plan = bucket_plan([p.numel() for p in self.params], bucket_cap_bytes)
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
