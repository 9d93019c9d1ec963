# cell: interleaved_schedule
# scores: full
# queue style: two deques of pending forwards and backwards, the warm-up counted from when device s's first backward can run
from collections import deque
from itertools import product

if num_stages < 1:
    raise ValueError("num_stages must be >= 1")
if num_microbatches < 1:
    raise ValueError("num_microbatches must be >= 1")
if num_chunks < 1:
    raise ValueError("num_chunks must be >= 1")
if num_microbatches % num_stages:
    raise ValueError("num_microbatches must be a multiple of num_stages")
rounds = num_microbatches // num_stages
result = []
for device in range(num_stages):
    forwards = deque(("F", r * num_stages + j, c)
                     for r, c, j in product(range(rounds), range(num_chunks), range(num_stages)))
    backwards = deque(("B", r * num_stages + j, num_chunks - 1 - c)
                      for r, c, j in product(range(rounds), range(num_chunks), range(num_stages)))
    # the first backward here is micro-batch 0 on virtual stage (v-1)p + device: it has gone through v*p - 1 - device
    # virtual stages before it, each of which this device can fill with a forward of its own while waiting
    warmup = num_chunks * num_stages - 1 - device
    ops = [forwards.popleft() for _ in range(min(warmup, len(forwards)))]
    while forwards:
        ops.append(forwards.popleft())
        ops.append(backwards.popleft())
    ops.extend(backwards)
    result.append(ops)
return result
