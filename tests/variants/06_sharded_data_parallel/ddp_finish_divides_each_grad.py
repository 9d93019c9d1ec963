# cell: bucketed_ddp
# region: 2
# scores: full
# another way: wait for all handles first, then copy every piece back and divide each gradient in place
for _, _, handle in self.handles:
    handle.wait()
n = dist.get_world_size()
for b, flat, _ in self.handles:
    pieces = torch.split(flat, [self.params[i].numel() for i in self.buckets[b]])
    for i, piece in zip(self.buckets[b], pieces):
        self.params[i].grad.copy_(piece.view_as(self.params[i].grad)).div_(n)
self.handles.clear()
self.missing = [len(b) for b in self.buckets]
