# cell: bucketed_ddp
# region: 2
# loses: test_bucketed_ddp
# finish() waits for every handle and averages, but never empties its list: each step waits on
# and copies back every earlier step's buckets too (the last ones win, so the values are right)
# and keeps their buffers alive, one copy of the gradients more per step
world_size = dist.get_world_size()
for b, flat, handle in self.handles:
    handle.wait()
    flat /= world_size
    offset = 0
    for i in self.buckets[b]:
        grad = self.params[i].grad
        grad.copy_(flat[offset:offset + grad.numel()].view_as(grad))
        offset += grad.numel()
self.missing = [len(b) for b in self.buckets]
