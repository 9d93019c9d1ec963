# cell: bucketed_ddp
# region: 1
# loses: test_bucketed_ddp
# no buckets: every parameter's gradient is allreduced on its own (right values, a collective per tensor)
self.params = list(model.parameters())
self.buckets = [[i] for i in reversed(range(len(self.params)))]
self.handles = []
self.missing = [len(b) for b in self.buckets]


def arrived(b):
    if not self.require_sync:
        return
    self.missing[b] -= 1
    if self.missing[b] == 0:
        flat = torch.cat([self.params[i].grad.reshape(-1) for i in self.buckets[b]])
        self.handles.append((b, flat, dist.all_reduce(flat, async_op=True)))


for b, bucket in enumerate(self.buckets):
    for i in bucket:
        self.params[i].register_post_accumulate_grad_hook(lambda p, b=b: arrived(b))
