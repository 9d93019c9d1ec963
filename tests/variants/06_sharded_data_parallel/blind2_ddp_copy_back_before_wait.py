# cell: bucketed_ddp
# loses: test_bucketed_ddp
# finish() copies each bucket's flat buffer back into the .grad tensors and divides, and only then calls
# handle.wait(): the buffer is read before the allreduce is known to be done ("the gradient buffers must not be
# read before wait()"). On gloo the early buckets are usually done by then, so the values are right unless the
# last bucket's allreduce is still running; the notebook says a test sees this only when the timing is unlucky.
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
    offset = 0
    for q in self.buckets[b]:
        q.grad.copy_(flat[offset:offset + q.numel()].view_as(q.grad)).div_(self.world_size)
        offset += q.numel()
    handle.wait()
self.pending = []
self.arrived = [0] * len(self.buckets)
