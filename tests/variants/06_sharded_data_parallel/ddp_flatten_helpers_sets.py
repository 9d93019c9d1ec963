# cell: bucketed_ddp
# region: 1
# scores: full
# another way: the bucket's gradients flattened with torch's helper, the arrivals tracked as a set of indices
from torch._utils import _flatten_dense_tensors

self.params = [p for p in model.parameters()]
self.buckets = bucket_plan([p.numel() * p.element_size() for p in self.params], bucket_cap_bytes)
self.handles = []
self.missing = [len(b) for b in self.buckets]  # kept for finish(); the sets below decide
self.waiting = {}


def arrived(i, b):
    if not self.require_sync:
        return
    left = self.waiting.setdefault(b, set(self.buckets[b]))
    left.discard(i)
    if not left:
        del self.waiting[b]
        flat = _flatten_dense_tensors([self.params[j].grad for j in self.buckets[b]])
        self.handles.append((b, flat, dist.all_reduce(flat, async_op=True)))


for b, bucket in enumerate(self.buckets):
    for i in bucket:
        self.params[i].register_post_accumulate_grad_hook(lambda p, i=i, b=b: arrived(i, b))
