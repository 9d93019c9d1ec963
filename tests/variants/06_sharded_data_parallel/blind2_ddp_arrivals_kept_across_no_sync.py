# cell: bucketed_ddp
# loses: test_bucketed_ddp
# Records arrivals in a set per bucket on every backward, no_sync included, and clears the sets only in finish():
# after an accumulation backward every set is already full, so in the synchronising backward a bucket's allreduce
# starts at the FIRST of its gradients (the others still lack this micro-batch, and backward then adds into
# buffers the allreduce may be reading). State not reset on the no_sync path; exact without accumulation.
self.params = list(model.parameters())
self.world_size = dist.get_world_size()
plan = bucket_plan([p.numel() * p.element_size() for p in self.params], bucket_cap_bytes)
self.buckets = [[self.params[i] for i in bucket] for bucket in plan]
self.bucket_of = {id(p): b for b, bucket in enumerate(self.buckets) for p in bucket}
self.seen = [set() for _ in self.buckets]
self.started = set()
self.pending = []


def on_grad(p):
    b = self.bucket_of[id(p)]
    self.seen[b].add(id(p))
    if self.require_sync and b not in self.started and len(self.seen[b]) == len(self.buckets[b]):
        self.started.add(b)
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
self.seen = [set() for _ in self.buckets]
self.started = set()
