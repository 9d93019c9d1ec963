# cell: bucketed_ddp
# region: 1
# loses: test_bucketed_ddp
# forgets no_sync: every micro-batch's backward starts allreduces (the first ones are never waited for)
self.params = list(model.parameters())
self.buckets = bucket_plan([p.numel() * p.element_size() for p in self.params], bucket_cap_bytes)
self.handles = []
self.missing = [len(b) for b in self.buckets]


def arrived(b):
    self.missing[b] -= 1
    if self.missing[b] == 0:
        flat = torch.cat([self.params[i].grad.reshape(-1) for i in self.buckets[b]])
        self.handles.append((b, flat, dist.all_reduce(flat, async_op=True)))
        self.missing[b] = len(self.buckets[b])


for b, bucket in enumerate(self.buckets):
    for i in bucket:
        self.params[i].register_post_accumulate_grad_hook(lambda p, b=b: arrived(b))
