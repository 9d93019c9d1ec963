# cell: bucketed_ddp
# region: 1
# loses: test_bucketed_ddp
# right buckets, right values, but every bucket's allreduce starts in finish(): nothing overlaps with backward
self.params = list(model.parameters())
self.buckets = bucket_plan([p.numel() * p.element_size() for p in self.params], bucket_cap_bytes)
self.handles = []
self.missing = [len(b) for b in self.buckets]
original_finish = self.finish


def finish():
    if not self.handles:
        for b, bucket in enumerate(self.buckets):
            flat = torch.cat([self.params[i].grad.reshape(-1) for i in bucket])
            self.handles.append((b, flat, dist.all_reduce(flat, async_op=True)))
    original_finish()


self.finish = finish
