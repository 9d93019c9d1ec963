# cell: bucketed_ddp
# region: 2
# loses: test_bucketed_ddp
# divides by the world size twice (once on the flat buffer, once more on every gradient)
world_size = dist.get_world_size()
for b, flat, handle in self.handles:
    handle.wait()
    flat /= world_size
    offset = 0
    for i in self.buckets[b]:
        grad = self.params[i].grad
        grad.copy_(flat[offset:offset + grad.numel()].view_as(grad) / world_size)
        offset += grad.numel()
self.handles = []
self.missing = [len(b) for b in self.buckets]
