# cell: bucketed_ddp
# region: 2
# loses: test_bucketed_ddp
# leaves the sum over ranks in .grad: the step is world_size times too large
for b, flat, handle in self.handles:
    handle.wait()
    offset = 0
    for i in self.buckets[b]:
        grad = self.params[i].grad
        grad.copy_(flat[offset:offset + grad.numel()].view_as(grad))
        offset += grad.numel()
self.handles = []
self.missing = [len(b) for b in self.buckets]
